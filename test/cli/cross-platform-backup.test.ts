import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { openDatabase } from '../../src/db/open-database.js';
import { dumpTables, filesUnder, populatedDataDir } from '../helpers/backup-fixtures.js';
import { programPlatform, runClinic, runExecutable, type CliResult } from '../helpers/run-cli.js';
import { useDataDirs } from '../helpers/fixtures.js';

// npm run test:wine runs this with clinic.exe (under Wine) as the program and dist/clinic beside it.
const linuxBin = process.env.CLINIC_LINUX_BIN;

const tempDir = useDataDirs();

function succeeded(what: string, result: CliResult): void {
  assert.equal(result.code, 0, `${what}: ${result.stdout}${result.stderr}`);
}

/**
 * Every row and every document file of a data directory, and apart what each restore adds: its
 * data.import to the audit trail's actions (the backups' own data.export is recorded in their
 * source after the archive is named, so it never travels), and the change feed's range it
 * declares lost, as its first seq (issue 39, M4).
 */
function contentOf(dataDir: string) {
  const db = openDatabase(dataDir);
  try {
    const { audit_events: _trail, change_feed_lost_ranges: _lost, ...tables } = dumpTables(db);
    const trail = db.prepare<[], { action: string }>('SELECT action FROM audit_events ORDER BY seq').all();
    const lost = db.prepare<[], { first_seq: number }>('SELECT first_seq FROM change_feed_lost_ranges ORDER BY first_seq').all();
    return { tables, files: filesUnder(dataDir), trail: trail.map((row) => row.action), lost: lost.map((row) => row.first_seq) };
  } finally {
    db.close();
  }
}

describe(
  'a backup moves between Linux and Windows',
  {
    timeout: 180_000,
    skip: (programPlatform !== 'win32' || linuxBin === undefined) && 'needs clinic.exe and dist/clinic (npm run test:wine)',
  },
  () => {
    it('restores a backup made by dist/clinic with clinic.exe, and one made by clinic.exe with dist/clinic; check passes on both', async () => {
      const { dataDir } = populatedDataDir(tempDir());
      const { trail: originalTrail, lost: originalLost, ...original } = contentOf(dataDir);
      assert.deepEqual([originalTrail, originalLost], [[], []]);
      const lastSeq = original.tables.change_events!.length;

      const fromLinux = join(tempDir(), 'made-on-linux.tar.gz');
      succeeded('dist/clinic backup', await runExecutable(linuxBin!, ['backup', fromLinux, '--data', dataDir]));
      const onWindows = join(tempDir(), 'restored-on-windows');
      succeeded('clinic.exe restore', await runClinic(['restore', fromLinux, '--data', onWindows]));
      succeeded('clinic.exe check', await runClinic(['check', '--data', onWindows]));
      const { trail: windowsTrail, lost: windowsLost, ...onWindowsContent } = contentOf(onWindows);
      assert.deepEqual(onWindowsContent, original);
      assert.deepEqual(windowsTrail, ['data.import']);
      // The restore declares lost what the server may have committed after the backup.
      assert.deepEqual(windowsLost, [lastSeq + 1]);

      const fromWindows = join(tempDir(), 'made-on-windows.tar.gz');
      succeeded('clinic.exe backup', await runClinic(['backup', fromWindows, '--data', onWindows]));
      const backOnLinux = join(tempDir(), 'restored-on-linux');
      succeeded('dist/clinic restore', await runExecutable(linuxBin!, ['restore', fromWindows, '--data', backOnLinux]));
      succeeded('dist/clinic check', await runExecutable(linuxBin!, ['check', '--data', backOnLinux]));
      const { trail: linuxTrail, lost: linuxLost, ...backOnLinuxContent } = contentOf(backOnLinux);
      assert.deepEqual(backOnLinuxContent, original);
      // The Windows restore's range travelled in the second backup; the Linux restore adds its own after it.
      assert.equal(linuxLost.length, 2);
      assert.equal(linuxLost[0], lastSeq + 1);
      // The restore on Windows travelled in the second backup; then the restore on Linux.
      assert.deepEqual(linuxTrail, ['data.import', 'data.import']);
    });
  },
);
