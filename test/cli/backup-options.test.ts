// `clinic serve`'s backup schedule as typed (src/cli/backup-options.ts): --backup-dir, --backup-every, --backup-keep or their CLINIC_BACKUP_* variables (docs/backups.md), checked before the server starts.
import assert from 'node:assert/strict';
import { Command, InvalidArgumentError } from 'commander';
import { join } from 'node:path';
import { afterEach, describe, it } from 'node:test';
import { parseFolder, parseInterval, parseKeep, resolveBackupSchedule } from '../../src/cli/backup-options.js';

/** `clinic serve` as commander gives it to an action: a usage error is thrown (exitOverride) instead of ending the test, and said nowhere. */
const serveCommand = () => new Command('serve').exitOverride().configureOutput({ writeErr: () => {}, writeOut: () => {} });

const VARIABLES = ['CLINIC_BACKUP_DIR', 'CLINIC_BACKUP_EVERY', 'CLINIC_BACKUP_KEEP'] as const;
const DAY_MS = 86_400_000;

/** A data directory's path; nothing is made, the schedule only compares paths. */
const DATA_DIR = join('/srv', 'clinic', 'data');

describe("serve's backup options (backup-options)", () => {
  const saved = VARIABLES.map((name) => process.env[name]);
  afterEach(() => {
    VARIABLES.forEach((name, i) => {
      if (saved[i] === undefined) delete process.env[name];
      else process.env[name] = saved[i];
    });
  });

  it('takes an interval from 1s to 366d, refusing one short of it and one past', () => {
    assert.equal(parseInterval('1s'), 1000);
    assert.equal(parseInterval('1h30m'), 5_400_000);
    assert.equal(parseInterval('366d'), 366 * DAY_MS);
    assert.throws(() => parseInterval('0s'), { message: 'the interval must be at least 1s' });
    assert.throws(() => parseInterval('366d1s'), { message: 'the interval may be at most 366d' });
    for (const text of ['daily', '24', '1.5h', '-1h', '']) assert.throws(() => parseInterval(text), InvalidArgumentError, text);
  });

  it('keeps 1 to 10,000 archives, written as plain digits', () => {
    assert.deepEqual(
      ['1', '7', '10000'].map((text) => parseKeep(text)),
      [1, 7, 10_000],
    );
    for (const text of ['0', '10001', '2.5', '+3', ' 3', '-1', '1e2', '']) {
      assert.throws(() => parseKeep(text), { message: 'expected a whole number from 1 to 10000' }, JSON.stringify(text));
    }
    assert.equal(parseFolder(' backups '), ' backups ', 'a folder is taken as typed');
    assert.throws(() => parseFolder('  '), { message: 'expected a folder' }, 'blanks would be the working directory');
  });

  it('has no schedule without a folder, and a nightly one keeping a week with only the folder', () => {
    assert.equal(resolveBackupSchedule(serveCommand(), {}, DATA_DIR), undefined);
    assert.deepEqual(resolveBackupSchedule(serveCommand(), { backupDir: '/mnt/usb/clinic' }, DATA_DIR), {
      backupDir: '/mnt/usb/clinic',
      everyMs: DAY_MS,
      keep: 7,
    });
  });

  it('reads each setting from its variable where its option is not given, the option winning', () => {
    process.env.CLINIC_BACKUP_DIR = '/mnt/usb/from-env';
    process.env.CLINIC_BACKUP_EVERY = '6h';
    process.env.CLINIC_BACKUP_KEEP = '30';
    assert.deepEqual(resolveBackupSchedule(serveCommand(), {}, DATA_DIR), {
      backupDir: '/mnt/usb/from-env',
      everyMs: 6 * 3_600_000,
      keep: 30,
    });
    assert.deepEqual(resolveBackupSchedule(serveCommand(), { backupDir: '/mnt/nas', backupEvery: 60_000, backupKeep: 2 }, DATA_DIR), {
      backupDir: '/mnt/nas',
      everyMs: 60_000,
      keep: 2,
    });
  });

  it('refuses an interval or a count without a folder as a usage error naming what was given', () => {
    assert.throws(() => resolveBackupSchedule(serveCommand(), { backupEvery: 3_600_000 }, DATA_DIR), {
      exitCode: 2,
      message: /^error: --backup-every \(or CLINIC_BACKUP_EVERY\) needs --backup-dir DIR \(or CLINIC_BACKUP_DIR\)/,
    });
    process.env.CLINIC_BACKUP_KEEP = '3';
    assert.throws(() => resolveBackupSchedule(serveCommand(), {}, DATA_DIR), {
      exitCode: 2,
      message: /^error: --backup-keep \(or CLINIC_BACKUP_KEEP\) needs --backup-dir DIR/,
    });
  });

  it('refuses a folder in the data directory, which a lost disk would take with it, and takes one beside it', () => {
    for (const inside of [DATA_DIR, join(DATA_DIR, 'backups'), join(DATA_DIR, '..backups'), `${DATA_DIR}/./nightly/../x`]) {
      assert.throws(
        () => resolveBackupSchedule(serveCommand(), { backupDir: inside }, DATA_DIR),
        { exitCode: 2, message: /is inside the data directory \/srv\/clinic\/data: a backup must survive losing it/ },
        inside,
      );
    }
    for (const outside of ['/srv/clinic', '/srv/clinic/data-backups', '/srv/clinic/data/../backups', '/']) {
      assert.equal(resolveBackupSchedule(serveCommand(), { backupDir: outside }, DATA_DIR)?.keep, 7, outside);
    }
  });
});
