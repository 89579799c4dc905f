import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { openDatabase } from '../../src/db/open-database.js';
import { createTestPatient } from '../helpers/builders.js';
import { runClinic } from '../helpers/run-cli.js';
import { makeDataDir } from '../helpers/test-server.js';

// `clinic patient find` takes the words GET /patients?q takes, with the same bound on their number.

describe('clinic patient find: the number of words', () => {
  const dataDir = makeDataDir();
  before(() => {
    const db = openDatabase(dataDir);
    try {
      createTestPatient(db, { first_name: 'Hans', last_name: 'Müller-Lüdenscheidt' });
    } finally {
      db.close();
    }
  });
  after(() => rmSync(dataDir, { recursive: true, force: true }));

  it('finds with 10 words', async () => {
    const result = await runClinic(['patient', 'find', ...'h ha han hans h ha han hans m lud'.split(' '), '--json', '--data', dataDir]);
    assert.equal(result.code, 0, result.stderr);
    assert.deepEqual(
      JSON.parse(result.stdout).map((p: { last_name: string }) => p.last_name),
      ['Müller-Lüdenscheidt'],
    );
  });

  it('refuses 11 words as the API does, exit 1, naming the limit', async () => {
    const words = 'a b c d e f g h i j k'.split(' ');
    const human = await runClinic(['patient', 'find', ...words, '--data', dataDir]);
    assert.equal(human.code, 1, human.stderr);
    assert.match(human.stderr, /<text\.\.\.> "a b c d e f g h i j k": Value error, a search may hold at most 10 words \(value_error\)/);
    const json = await runClinic(['patient', 'find', ...words, '--json', '--data', dataDir]);
    assert.equal(json.code, 1);
    assert.deepEqual(JSON.parse(json.stderr.trim()).detail[0].loc, ['query', 'q']);
  });
});
