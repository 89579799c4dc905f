import type { Plugin } from 'esbuild';

/** One command group of src/cli/program.ts: its module of commands and the top-level names it registers. */
export interface CommandGroup {
  module: string;
  names: string[];
}
export function commandGroupsOf(source: string): CommandGroup[];
export function withEveryGroupImported(source: string): string;
export function withOnlyGroup(source: string, module: string): string;
export function rewritingProgram(name: string, rewrite: (source: string) => string): Plugin;
