/**
 * One large document upload, streamed from a generator (never held whole by either side), while
 * the server's resident memory is sampled: a document must pass through the server, not into it.
 */
import { randomBytes } from 'node:crypto';
import { request } from 'node:http';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { API } from './scenarios.js';
import type { ServerProcess } from './server-process.js';

/** How the upload went and what it cost the server in memory (MiB). */
export interface BigUploadResult {
  status: number;
  seconds: number;
  megabytesPerSec: number;
  rssBeforeMb: number;
  rssPeakDuringMb: number;
  /** The largest rise of VmRSS over its value before the upload. */
  rssRiseMb: number;
}

const CHUNK = 256 * 1024;
const SAMPLE_EVERY_MS = 10;

/** `sizeBytes` of multipart form: a `type` field and one file part of pseudo-random bytes. */
function formStream(sizeBytes: number, boundary: string): { stream: Readable; length: number } {
  const head = Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="type"\r\n\r\nxrays\r\n` +
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="scan.dcm"\r\nContent-Type: application/dicom\r\n\r\n`,
  );
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  // One random block repeated: the server hashes and writes what it gets, whatever it is.
  const block = randomBytes(CHUNK);
  function* chunks(): Generator<Buffer> {
    yield head;
    for (let sent = 0; sent < sizeBytes; sent += CHUNK) yield sent + CHUNK <= sizeBytes ? block : block.subarray(0, sizeBytes - sent);
    yield tail;
  }
  return { stream: Readable.from(chunks(), { objectMode: false }), length: head.length + sizeBytes + tail.length };
}

/** Uploads `sizeBytes` as a document of `patientId`, sampling the server's VmRSS throughout. */
export async function uploadLargeDocument(
  server: ServerProcess,
  key: string,
  patientId: string,
  sizeBytes: number,
): Promise<BigUploadResult> {
  const boundary = 'clinic-bench-large';
  const form = formStream(sizeBytes, boundary);
  const rssBeforeMb = server.memory().rssMb;
  let rssPeakDuringMb = rssBeforeMb;
  const sampler = setInterval(() => {
    rssPeakDuringMb = Math.max(rssPeakDuringMb, server.memory().rssMb);
  }, SAMPLE_EVERY_MS);
  const started = process.hrtime.bigint();
  try {
    const status = await new Promise<number>((resolve, reject) => {
      const req = request(
        {
          host: '127.0.0.1',
          port: server.port,
          method: 'POST',
          path: `${API}/patients/${patientId}/documents`,
          headers: {
            authorization: `Bearer ${key}`,
            'content-type': `multipart/form-data; boundary=${boundary}`,
            'content-length': form.length,
          },
        },
        (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode ?? 0));
        },
      );
      req.on('error', reject);
      pipeline(form.stream, req).catch(reject);
    });
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    rssPeakDuringMb = Math.max(rssPeakDuringMb, server.memory().rssMb);
    return {
      status,
      seconds,
      megabytesPerSec: sizeBytes / 1024 / 1024 / seconds,
      rssBeforeMb,
      rssPeakDuringMb,
      rssRiseMb: rssPeakDuringMb - rssBeforeMb,
    };
  } finally {
    clearInterval(sampler);
  }
}
