/**
 * Upload throughput and server CPU of two checkouts' multipart readers, measured in one run,
 * rounds alternating so that whatever else the machine does falls on both:
 *
 *   node --import tsx bench/upload-parsers.ts <other-checkout> [uploads-per-round] [rounds]
 *
 * `<other-checkout>` is a tree of this program with node_modules (e.g. `git archive <commit>`
 * unpacked, node_modules linked); this checkout is the second. Each round starts a fresh server
 * of each tree pinned to one core, uploads one small warm-up document and then `uploads` of 20 MiB
 * one after another, and reads the server's CPU time from /proc.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { openDatabase } from '../src/db/open-database.js';
import { createApiKey } from '../src/domain/api-keys.js';
import { createPatient } from '../src/domain/patients/create-patient.js';
import { uploadLargeDocument } from './big-upload.js';
import { API } from './scenarios.js';
import { freePort, startPinnedServer } from './server-process.js';

const SIZE = 20 * 1024 * 1024;
const here = resolve(fileURLToPath(new URL('..', import.meta.url)));
const [otherRoot, uploadsArg, roundsArg] = process.argv.slice(2);
if (!otherRoot) throw new Error('usage: bench/upload-parsers.ts <other-checkout> [uploads-per-round] [rounds]');
const uploads = Number(uploadsArg ?? 15);
const rounds = Number(roundsArg ?? 2);

/** One round of one tree: MiB/s over all its uploads and server CPU ms per upload. */
async function measure(root: string): Promise<{ mibPerSec: number; cpuMsPerUpload: number }> {
  const dataDir = mkdtempSync(join(tmpdir(), 'clinic-upload-bench-'));
  try {
    const db = openDatabase(dataDir);
    const patientId = createPatient(db, {
      first_name: 'Bench',
      last_name: 'Upload',
      email: 'bench@example.org',
      mobile: '+43 660 1234567',
    }).id;
    const key = createApiKey(db, { name: 'bench' }).key;
    db.close();
    const port = await freePort();
    const server = await startPinnedServer(
      [
        process.execPath,
        '--import',
        'tsx',
        join(root, 'src/main.ts'),
        'serve',
        '--data',
        dataDir,
        '--port',
        String(port),
        '--document-limit-mb',
        '64',
      ],
      { port, readyPath: `${API}/document-types`, logFile: join(dataDir, 'serve.log') },
    );
    try {
      if ((await uploadLargeDocument(server, key, patientId, 1024 * 1024)).status !== 201)
        throw new Error(`${root}: warm-up upload failed`);
      const cpuBefore = server.cpuSeconds();
      let seconds = 0;
      for (let i = 0; i < uploads; i++) {
        const result = await uploadLargeDocument(server, key, patientId, SIZE);
        if (result.status !== 201) throw new Error(`${root}: upload answered ${result.status}`);
        seconds += result.seconds;
      }
      return { mibPerSec: (uploads * SIZE) / 1024 / 1024 / seconds, cpuMsPerUpload: ((server.cpuSeconds() - cpuBefore) * 1000) / uploads };
    } finally {
      await server.stop();
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

const trees = [
  { name: 'other', root: resolve(otherRoot) },
  { name: 'this', root: here },
];
for (let round = 1; round <= rounds; round++) {
  for (const tree of trees) {
    const { mibPerSec, cpuMsPerUpload } = await measure(tree.root);
    console.log(
      `round ${round} ${tree.name.padEnd(5)} ${uploads} × 20 MiB: ${mibPerSec.toFixed(0)} MiB/s, server CPU ${cpuMsPerUpload.toFixed(0)} ms per upload`,
    );
  }
}
