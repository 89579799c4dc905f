import { rewriteOptions } from './command-line-options.js';
/**
 * The options by which a desk command reads a file of the PC it was typed on (interface 1.3.0,
 * "Commands on a desk PC"): `upload-document --file`, `create-patient --file`, `sms-gateway set
 * --token-file`. A desk PC sends each such file with the command, as a form part named by its
 * option; the server runs the command on its own copy.
 */
export const DESK_COMMAND_FILE_OPTIONS = ['file', 'token-file'] as const;

export type DeskCommandFileOption = (typeof DESK_COMMAND_FILE_OPTIONS)[number];

/** A file a desk PC sent with its command, as the server keeps it while the command runs. */
export interface DeskCommandFile {
  /** The option it is given to (`file` for `--file`). */
  option: DeskCommandFileOption;
  /** The server's copy: a temporary file of the data directory, removed once the command ends. */
  path: string;
  /** Its name on the desk PC (the last part of its path there): what a command stores or shows of it. */
  name: string;
  /** Its bytes' SHA-256, part of what makes a repeated command the same (an Idempotency-Key's request). */
  sha256: string;
}

/** Whether `name` is one of DESK_COMMAND_FILE_OPTIONS. */
export const isDeskCommandFileOption = (name: string): name is DeskCommandFileOption =>
  (DESK_COMMAND_FILE_OPTIONS as readonly string[]).includes(name);

/**
 * `argv` with each file option's value (`--file X` or `--file=X`, before any `--`) made the
 * server's copy of the file sent for it; an option sent no file for keeps its value, which names
 * a file of the desk PC the server cannot read (the command refuses it).
 */
export function withServerCopies(argv: readonly string[], files: readonly DeskCommandFile[]): string[] {
  const copyOf = new Map(files.map((file) => [file.option as string, file.path]));
  return rewriteOptions(argv, DESK_COMMAND_FILE_OPTIONS, (option) => {
    const copy = copyOf.get(option.name);
    return copy === undefined || option.value === undefined ? option.words : option.withValue(copy);
  });
}
