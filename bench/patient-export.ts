/**
 * Issue 47's target for the patient's copy, against `dist/clinic serve` pinned to its core: the
 * export of a patient with 50 appointments, 20 invoices and 30 documents of 1 MiB takes at most
 * 5 s, and the server's peak memory during it does not grow with the documents' sizes. Two
 * clinics seeded alike but for the documents' sizes (30 × 1 MiB, 30 × 20 MiB), each exported
 * `samples` times in turn; each export's time to the first byte and to the last, and the rise of
 * its server's VmRSS over its value before (sampled every 10 ms).
 */
import { Agent, request } from 'node:http';
import { join } from 'node:path';
import { openDatabase } from '../src/db/open-database.js';
import { createApiKey } from '../src/domain/api-keys.js';
import { bookAppointment } from '../src/domain/appointments/book-appointment.js';
import { addDoctor } from '../src/domain/catalog.js';
import { createInvoice } from '../src/domain/invoices/create-invoice.js';
import { createPatient } from '../src/domain/patients/create-patient.js';
import { setModuleEnabled } from '../src/domain/settings.js';
import { uploadLargeDocument } from './big-upload.js';
import { API } from './scenarios.js';
import { freePort, startPinnedServer, type ServerProcess } from './server-process.js';

export const EXPORT_APPOINTMENTS = 50;
export const EXPORT_INVOICES = 20;
export const EXPORT_DOCUMENTS = 30;

export interface PatientExportFigure {
  documentMb: number;
  /** Each export's seconds to the last byte, to the first byte, its bytes, and the VmRSS rise (MiB). */
  seconds: number[];
  firstByteMs: number[];
  bytes: number;
  rssRiseMb: number[];
}

export interface PatientExportResult {
  figures: PatientExportFigure[];
}

/** A clinic with one patient of 50 appointments and 20 invoices; the key and the patient's id. */
function seedClinic(dataDir: string): { key: string; patientId: string } {
  const db = openDatabase(dataDir);
  try {
    setModuleEnabled(db, 'billing', true);
    const patient = createPatient(db, { first_name: 'Erika', last_name: 'Export', email: 'erika@example.org', mobile: '+43 664 1' });
    const doctor = addDoctor(db, { name: 'Dr. Bench', color: '#123456' });
    for (let i = 0; i < EXPORT_APPOINTMENTS; i++) {
      const start = new Date(Date.UTC(2025, 0, 1 + i, 9));
      const end = new Date(start.getTime() + 30 * 60_000);
      bookAppointment(
        db,
        { patient_id: patient.id, start_at: start.toISOString(), end_at: end.toISOString(), resource_id: doctor.id },
        'api',
      );
    }
    for (let i = 0; i < EXPORT_INVOICES; i++) {
      createInvoice(db, { patient_id: patient.id, total: `${100 + i}.00`, issued_at: new Date(Date.UTC(2025, 1, 1 + i)).toISOString() });
    }
    return { key: createApiKey(db, { name: 'bench' }).key, patientId: patient.id };
  } finally {
    db.close();
  }
}

/** One export read to its end and dropped: its seconds, first byte, bytes and the server's memory rise. */
async function exportOnce(server: ServerProcess, agent: Agent, key: string, patientId: string) {
  const before = server.memory().rssMb;
  let peak = before;
  const sampler = setInterval(() => {
    peak = Math.max(peak, server.memory().rssMb);
  }, 10);
  const started = process.hrtime.bigint();
  try {
    return await new Promise<{ seconds: number; firstByteMs: number; bytes: number; rssRiseMb: number }>((resolve, reject) => {
      const req = request(
        {
          host: '127.0.0.1',
          port: server.port,
          path: `${API}/patients/${patientId}/export`,
          agent,
          headers: { authorization: `Bearer ${key}` },
        },
        (res) => {
          if (res.statusCode !== 200) reject(new Error(`export answered ${res.statusCode}`));
          let firstByteMs: number | undefined;
          let bytes = 0;
          res.on('data', (chunk: Buffer) => {
            firstByteMs ??= Number(process.hrtime.bigint() - started) / 1e6;
            bytes += chunk.length;
          });
          res.on('end', () => {
            peak = Math.max(peak, server.memory().rssMb);
            resolve({
              seconds: Number(process.hrtime.bigint() - started) / 1e9,
              firstByteMs: firstByteMs ?? 0,
              bytes,
              rssRiseMb: peak - before,
            });
          });
          res.on('error', reject);
        },
      );
      req.on('error', reject);
      req.end();
    });
  } finally {
    clearInterval(sampler);
  }
}

export async function measurePatientExport(executable: string, workDir: string, samples: number): Promise<PatientExportResult> {
  const sizesMb = [1, 20];
  const clinics: { documentMb: number; server: ServerProcess; key: string; patientId: string }[] = [];
  const agent = new Agent({ keepAlive: true });
  try {
    for (const documentMb of sizesMb) {
      const dataDir = join(workDir, `patient-export-${documentMb}mb`);
      const { key, patientId } = seedClinic(dataDir);
      const port = await freePort();
      const server = await startPinnedServer([executable, 'serve', '--host', '127.0.0.1', '--port', String(port), '--data', dataDir], {
        port,
        readyPath: `${API}/health`,
        logFile: join(workDir, `patient-export-${documentMb}mb.log`),
      });
      clinics.push({ documentMb, server, key, patientId });
      for (let i = 0; i < EXPORT_DOCUMENTS; i++) {
        const upload = await uploadLargeDocument(server, key, patientId, documentMb * 1024 * 1024);
        if (upload.status !== 201) throw new Error(`a bench document upload answered ${upload.status}`);
      }
    }
    const figures = clinics.map(
      ({ documentMb }) => ({ documentMb, seconds: [], firstByteMs: [], bytes: 0, rssRiseMb: [] }) as PatientExportFigure,
    );
    // One export of each before the samples: the first pays for warming up what any export reuses.
    for (const clinic of clinics) await exportOnce(clinic.server, agent, clinic.key, clinic.patientId);
    for (let sample = 0; sample < samples; sample++) {
      for (const [i, clinic] of clinics.entries()) {
        const measured = await exportOnce(clinic.server, agent, clinic.key, clinic.patientId);
        figures[i]!.seconds.push(measured.seconds);
        figures[i]!.firstByteMs.push(measured.firstByteMs);
        figures[i]!.rssRiseMb.push(measured.rssRiseMb);
        figures[i]!.bytes = measured.bytes;
      }
    }
    return { figures };
  } finally {
    agent.destroy();
    for (const clinic of clinics) await clinic.server.stop();
  }
}
