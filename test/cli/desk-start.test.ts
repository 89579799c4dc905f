import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { openDatabase } from '../../src/db/open-database.js';
import { addDoctor, addService } from '../../src/domain/catalog.js';
import { createInvoice } from '../../src/domain/invoices/create-invoice.js';
import { createPatient } from '../../src/domain/patients/create-patient.js';
import { buildPatient } from '../helpers/builders.js';
import { programPlatform, runClinic, testingExecutable } from '../helpers/run-cli.js';

/**
 * What a desk command's start loads, in the executable (issue 43: each command of a
 * receptionist's day within 2× a bare start of the runtime; bench/desk-latency.ts times them).
 * Node's modules for the network, hashing, compression, streams, processes and the terminal cost a
 * start several milliseconds each; the executable loads them on first use (scripts/build.mjs,
 * LAZY_MODULES) and only the module of the command typed (src/cli/program.ts, COMMAND_GROUPS).
 * Only dist/clinic is asked: the bundle that npm test runs is ESM, whose imports of Node's modules
 * are all loaded at its start, and clinic.exe runs under Wine, whose paths the hook cannot name.
 */
const skip = !testingExecutable || programPlatform === 'win32' ? 'the executable dist/clinic only (npm run test:dist)' : false;

/** Node's modules no command of the day needs (the payment's refusal of a reused key would hash; none is given). */
const NOT_AT_THE_DESK = ['net', 'tls', 'http', 'https', 'zlib', 'crypto', 'child_process', 'readline', 'tty', 'stream', 'fs/promises'];

/**
 * A preload given to the program with NODE_OPTIONS=--require (CommonJS: --import would start the
 * ESM loader and its modules): at exit it writes the names of Node's built-in modules the process
 * loaded, one a line, to the file CLINIC_TEST_LOADED_MODULES names.
 */
const LOADED_MODULES_HOOK = `process.on('exit', () => {
  const names = process.moduleLoadList.filter((entry) => entry.startsWith('NativeModule ')).map((entry) => entry.slice(13));
  require('node:fs').writeFileSync(process.env.CLINIC_TEST_LOADED_MODULES, names.join('\\n') + '\\n');
});
`;

describe('a desk command starts without the modules it does not use (issue 43)', { skip }, () => {
  let dir: string;
  let hook: string;
  let dataDir: string;
  let invoiceNumber: string;
  before(async () => {
    // An executable's first start on a PC unpacks and hashes its SQLite addon (node:crypto, streams); the desk's day comes after.
    const first = await runClinic(['version']);
    assert.equal(first.code, 0, first.stderr);
    dir = mkdtempSync(join(tmpdir(), 'clinic-desk-start-'));
    hook = join(dir, 'loaded-modules.cjs');
    writeFileSync(hook, LOADED_MODULES_HOOK);
    dataDir = join(dir, 'data');
    const db = openDatabase(dataDir);
    try {
      addDoctor(db, { name: 'Dr. Anna Berger', color: '#3366cc' });
      addService(db, { name: 'Kontrolle', duration_min: 30, price: 80, color: '#22aa66' });
      const patient = createPatient(db, buildPatient({ last_name: 'Muster' }));
      invoiceNumber = createInvoice(db, { patient_id: patient.id, total: '80.00', currency: 'EUR' }).invoice_number;
    } finally {
      db.close();
    }
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  const day: readonly (readonly [title: string, args: () => string[]])[] = [
    ['patient find', () => ['patient', 'find', 'Muster']],
    ['patient show', () => ['patient', 'show', 'P-1']],
    [
      'book-appointment',
      () => ['book-appointment', '--patient-id', 'P-1', '--doctor', 'berger', '--service', 'kontrolle', '--start-at', '2030-01-02T10:00'],
    ],
    ['appointment list', () => ['appointment', 'list']],
    ['record-payment', () => ['record-payment', '--invoice', invoiceNumber, '--amount', '10.00', '--method', 'cash']],
    ['report day', () => ['report', 'day']],
  ];
  for (const [title, args] of day) {
    it(`${title} loads none of ${NOT_AT_THE_DESK.join(', ')}`, async () => {
      const list = join(dir, `${title.replace(/ /g, '-')}.modules`);
      const run = await runClinic([...args(), '--data', dataDir], {
        env: { NODE_OPTIONS: `--require ${hook}`, CLINIC_TEST_LOADED_MODULES: list },
      });
      assert.equal(run.code, 0, run.stderr);
      const loaded = new Set(readFileSync(list, 'utf8').split('\n'));
      assert.deepEqual(
        NOT_AT_THE_DESK.filter((name) => loaded.has(name)),
        [],
      );
    });
  }
});
