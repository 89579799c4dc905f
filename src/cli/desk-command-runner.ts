import type { DeskCommandRunner } from '../server/config.js';

/**
 * How `clinic serve` runs the commands of desk PCs: the program's own command line
 * (desk-pc-commands.ts), which the entry point hands over here, since the command line that
 * contains `serve` cannot import itself.
 */
let runner: DeskCommandRunner | undefined;

/** Called once by the program's entry point (src/main.ts, src/sea/main.ts). */
export function provideDeskCommands(run: DeskCommandRunner): void {
  runner = run;
}

/** The runner the entry point provided, if any. */
export function deskCommandsOfThisProgram(): DeskCommandRunner | undefined {
  return runner;
}
