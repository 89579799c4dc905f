/** One option of a command line as it was typed: `--name value` or `--name=value`. */
export interface TypedOption {
  name: string;
  /** Its value; undefined when the line ends right after `--name` (commander then says it is missing). */
  value: string | undefined;
  /** The words it took, as typed. */
  words: readonly string[];
  /** The option with another value, written as it was typed (one word or two). */
  withValue(value: string): string[];
}

/**
 * `argv` with each option of `names` before any `--` (after which words are no options) replaced
 * by the words `rewrite` gives for it: its own `words` to keep it, none to drop it, `withValue`
 * to change its value. The one walk over a desk command line, on the desk PC and on the server.
 */
export function rewriteOptions(
  argv: readonly string[],
  names: readonly string[],
  rewrite: (option: TypedOption) => readonly string[],
): string[] {
  const line: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const word = argv[i]!;
    if (word === '--') {
      line.push(...argv.slice(i));
      break;
    }
    const name = names.find((candidate) => word === `--${candidate}` || word.startsWith(`--${candidate}=`));
    if (name === undefined) {
      line.push(word);
      continue;
    }
    const inline = word !== `--${name}`;
    const value = inline ? word.slice(name.length + 3) : argv[i + 1];
    const words = inline || value === undefined ? [word] : [word, argv[++i]!];
    line.push(...rewrite({ name, value, words, withValue: (changed) => (inline ? [`--${name}=${changed}`] : [`--${name}`, changed]) }));
  }
  return line;
}

/** `line` with `option value` added before any `--` (after which words are no options). */
export function withOption(line: readonly string[], option: string, value: string): string[] {
  const end = line.indexOf('--');
  return end === -1 ? [...line, option, value] : [...line.slice(0, end), option, value, ...line.slice(end)];
}
