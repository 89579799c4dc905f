import { resolve } from 'node:path';
import type { Command } from 'commander';
import { errors } from '../../errors.js';
import { checkDataDirectory, type CheckOutcome } from '../../domain/maintenance/check.js';
import { requireExistingDatabase } from '../../domain/maintenance/data-dir.js';
import type { CliIo } from '../io.js';
import { withProgressBar } from '../progress-bar.js';
import { emit, type CommonOptions } from '../output.js';
import { subcommand } from '../subcommand.js';

function describe(outcomes: readonly CheckOutcome[]): string {
  const lines: string[] = [];
  for (const outcome of outcomes) {
    lines.push(`${outcome.status.toUpperCase().padEnd(7)}  ${outcome.name}: ${outcome.description}`);
    for (const finding of outcome.findings) lines.push(`         - ${finding}`);
  }
  return `${lines.join('\n')}\n`;
}

/** `clinic check`: prints every check and its findings; exits 1 when there is any but a note. */
export function registerCheckCommand(program: Command, io: CliIo): void {
  subcommand(program, 'check', "check the database and the documents' files; exit 1 on any finding").action(
    async (options: CommonOptions) => {
      requireExistingDatabase(options.data);
      const outcomes = await withProgressBar(io, 'Check', (progress) => checkDataDirectory(resolve(options.data), progress));
      // A note (a state the program allows, for staff to look at) fails nothing.
      const findings = outcomes.reduce((count, outcome) => count + (outcome.status === 'failed' ? outcome.findings.length : 0), 0);
      emit(io, options, { ok: findings === 0, checks: outcomes }, () => describe(outcomes));
      if (findings > 0) throw errors.checkFailed(findings);
    },
  );
}
