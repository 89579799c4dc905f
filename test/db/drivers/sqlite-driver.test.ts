// Which SQLite driver a process runs: CLINIC_SQLITE_DRIVER's, or the program's own (design-choices.md, the two SQLite drivers).
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import {
  DRIVER_VARIABLE,
  driverFromEnvironment,
  driverNamedInEnvironment,
  sqliteDriver,
  useSqliteDriver,
  type SqliteDriver,
} from '../../../src/db/drivers/sqlite-driver.js';
import { openDatabase } from '../../../src/db/open-database.js';
import { useDataDirs } from '../../helpers/fixtures.js';

const named = (name: string) => ({ [DRIVER_VARIABLE]: name });

describe('the SQLite driver of a process', () => {
  const newDataDir = useDataDirs();

  it('names no driver where CLINIC_SQLITE_DRIVER is unset or empty, and either driver by its exact name', () => {
    assert.equal(DRIVER_VARIABLE, 'CLINIC_SQLITE_DRIVER');
    assert.deepEqual(
      [{}, named(''), named('better-sqlite3'), named('node:sqlite')].map((env) => driverNamedInEnvironment(env)),
      [undefined, undefined, 'better-sqlite3', 'node:sqlite'],
    );
  });

  it('refuses any other name, saying which it may be: another case or spelling is none', () => {
    for (const name of ['sqlite3', 'Node:sqlite', 'node-sqlite', ' better-sqlite3']) {
      const refusal = { message: `CLINIC_SQLITE_DRIVER is "${name}"; it may be better-sqlite3 or node:sqlite` };
      assert.throws(() => driverNamedInEnvironment(named(name)), refusal);
      assert.throws(() => driverFromEnvironment(named(name)), refusal);
    }
  });

  it('makes better-sqlite3 by default and node:sqlite when named, loading neither until a connection is opened', () => {
    // On the machine's Node 20 node:sqlite does not exist: choosing it must still cost nothing.
    assert.deepEqual(
      [
        driverFromEnvironment({}).name,
        driverFromEnvironment(named('better-sqlite3')).name,
        driverFromEnvironment(named('node:sqlite')).name,
      ],
      ['better-sqlite3', 'better-sqlite3', 'node:sqlite'],
    );
  });

  describe('once chosen', () => {
    const original = sqliteDriver();
    after(() => useSqliteDriver(original));

    it('is the one CLINIC_SQLITE_DRIVER names until the program chooses one, and then makes every connection', () => {
      assert.equal(original.name, driverFromEnvironment().name);
      assert.equal(sqliteDriver(), original, 'the same driver each time');
      const opened: string[] = [];
      const recording: SqliteDriver = {
        name: original.name,
        open(path, options) {
          opened.push(path);
          return original.open(path, options);
        },
      };
      useSqliteDriver(recording);
      const dataDir = newDataDir();
      openDatabase(dataDir).close();
      assert.equal(sqliteDriver(), recording);
      assert.deepEqual(opened, [join(dataDir, 'clinic.db')]);
    });
  });
});
