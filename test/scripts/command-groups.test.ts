// How the executable's bundles are made from src/cli/program.ts's table of command groups
// (scripts/command-groups.mjs): read from the real table, the server's with every group imported,
// a day group's with its own only; a table written otherwise stops the build.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { commandGroupsOf, withEveryGroupImported, withOnlyGroup } from '../../scripts/command-groups.mjs';
import { buildProgram, SILENT } from '../../src/cli/program.js';

const source = readFileSync(new URL('../../src/cli/program.ts', import.meta.url), 'utf8');
/** The modules of commands a rewritten program.ts still loads with import(). */
const importedLater = (rewritten: string) =>
  [...rewritten.matchAll(/\bimport\('\.\/commands\/([\w-]+)\.js'\)/g)].map(([, module]) => module);

describe('the command groups of src/cli/program.ts', () => {
  it('are read as the program builds them: every top-level command, each in its module', async () => {
    const groups = commandGroupsOf(source);
    const program = await buildProgram(SILENT);
    assert.deepEqual(groups.flatMap(({ names }) => names).sort(), program.commands.map((command) => command.name()).sort());
    assert.deepEqual(
      groups.filter(({ module }) => module === 'patient').flatMap(({ names }) => names),
      ['create-patient', 'patient'],
    );
    assert.deepEqual(groups.find(({ module }) => module === 'payment')?.names, ['record-payment', 'refund']);
  });

  it('are all imported at the start in the server’s program, none with import()', () => {
    const eager = withEveryGroupImported(source);
    assert.deepEqual(importedLater(eager), []);
    assert.match(eager, /^import \{ registerPaymentCommands \} from '\.\/commands\/payment\.js';$/m);
    assert.match(eager, /^import \{ registerCreatePatientCommand \} from '\.\/commands\/patient\.js';$/m);
  });

  it("leave one group's module only in its own program; another's loader says the bundle holds not its commands", () => {
    const own = withOnlyGroup(source, 'patient');
    assert.deepEqual(importedLater(own), ['patient', 'patient']);
    assert.match(own, /the commands of \.\/commands\/report\.js are not in the bundle of \.\/commands\/patient\.js/);
  });

  it('refuse a module that has no group', () => {
    assert.throws(() => withOnlyGroup(source, 'billing'), /no command group in \.\/commands\/billing\.js/);
  });

  it('stop the build when the table is written otherwise than they are read', () => {
    const rewritten = source.replace(
      "async () => (await import('./commands/init.js')).registerInitCommand",
      "() => import('./commands/init.js').then((module) => module.registerInitCommand)",
    );
    assert.notEqual(rewritten, source);
    for (const read of [commandGroupsOf, withEveryGroupImported, (text: string) => withOnlyGroup(text, 'patient')]) {
      assert.throws(() => read(rewritten), /no longer declares its command groups/);
    }
  });
});
