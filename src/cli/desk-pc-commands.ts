import type { Db } from '../db/open-database.js';
import { rewriteOptions, withOption } from '../domain/desk/command-line-options.js';
import type { Caller } from '../domain/use-case.js';
import type { Role } from '../domain/people/roles.js';
import { commandPathOf, runCli } from './program.js';
import { deskPcRefusal } from './desk-roles.js';
import { runForDeskPc, type DeskPcRun } from './desk-identity.js';
import type { CliIo } from './io.js';
import type { DeskCommandAnswer, DeskCommandRunner } from '../server/config.js';

/**
 * A desk PC's command, run on the server (POST /desk/commands, interface 1.3.0, "Commands on a
 * desk PC"): the same program as on the server PC, on the server's open database, as the
 * session's person from that PC, its output captured instead of printed.
 */

/** What a desk PC's command printed, and its exit code. */
export type DeskPcAnswer = DeskCommandAnswer;

/** `argv` without `--data`: on the server, the data directory is its own. */
const withoutDataOption = (argv: readonly string[]): string[] => rewriteOptions(argv, ['data'], () => []);

/**
 * Runs a desk PC's command line on the server's `db` in `dataDir`, as `caller` (the server's
 * DeskCommandRunner, which `clinic serve` gives it): refused before it runs when it is the server
 * PC's own or the desk's, else what it printed.
 */
export const runDeskPcCommand: DeskCommandRunner = async (argv, server, caller, files) => {
  const command = await commandPathOf(argv);
  const refused = deskPcRefusal(command);
  if (refused !== null) return { refused, command };
  return { answer: await runOnServerDatabase(argv, server, caller, new Map(files.map((file) => [file.path, file.name]))) };
};

/** Runs `argv` on the server's database, its output captured. */
async function runOnServerDatabase(
  argv: readonly string[],
  server: { db: Db; dataDir: string },
  caller: Caller & { roles: readonly Role[] },
  files: ReadonlyMap<string, string>,
): Promise<DeskPcAnswer> {
  const stdout: string[] = [];
  const stderr: string[] = [];
  const io: CliIo = {
    stdout: (text) => void stdout.push(text),
    stderr: (text) => void stderr.push(text),
    isTty: false,
    stderrColumns: async () => undefined,
  };
  const line = withOption(withoutDataOption(argv), '--data', server.dataDir);
  const run: DeskPcRun = { db: server.db, caller, files };
  const exitCode = await runForDeskPc(run, () => runCli(line, io));
  // A file offered for download only when the command succeeded; the operation then records the read.
  const download = exitCode === 0 && run.download !== undefined ? run.download : null;
  return { exit_code: exitCode, stdout: stdout.join(''), stderr: stderr.join(''), download };
}
