import { createHash } from 'node:crypto';
import { request as httpsRequest } from 'node:https';
import { isIP } from 'node:net';
import { errors } from '../../errors.js';
import { writeFileWhole } from '../../domain/written-file.js';
import { PROGRAM_VERSION } from '../../version.js';
import { CONNECT_MS, IDLE_MS, refusalOf, type ServerAddress } from './server-requests.js';

/** A file fetched: its size, SHA-256 and the name the server gave it. */
export interface DownloadedFile {
  size: number;
  sha256: string;
  filename: string | undefined;
}

/**
 * Fetches the file a desk command offered (`download`, interface 1.3.0, "Commands on a desk PC")
 * into `target`: streamed into a temporary file beside it, checked against the answer's ETag (the
 * document's SHA-256; else DOCUMENT_FILE_DAMAGED), then renamed (replacing a file there only with
 * `replace`, else FILE_EXISTS). 3 s to connect, then as long as bytes move (10 s without one: a
 * lost answer, SERVER_NO_ANSWER). The operation records the read. Gives the file's size, its
 * SHA-256 and the name the answer's Content-Disposition gave it.
 */
export async function downloadTo(
  server: ServerAddress,
  path: string,
  headers: Record<string, string>,
  target: string,
  replace: boolean,
): Promise<DownloadedFile> {
  const url = new URL(path, server.url);
  const host = url.hostname.replace(/^\[|\]$/g, '');
  return writeFileWhole(target, { replace }, (file) => {
    const sha256 = createHash('sha256');
    let size = 0;
    let filename: string | undefined;
    return new Promise<DownloadedFile>((resolve, reject) => {
      let connected = false;
      const outgoing = httpsRequest({
        host,
        port: url.port === '' ? 443 : Number(url.port),
        path: `${url.pathname}${url.search}`,
        method: 'GET',
        ca: server.caPem,
        ...(isIP(host) === 0 ? { servername: host } : {}),
        agent: false,
        headers: { 'clinic-version': PROGRAM_VERSION, ...headers },
      });
      const connectTimer = setTimeout(() => outgoing.destroy(new Error('connect timeout')), CONNECT_MS);
      outgoing.on('socket', (socket) => {
        socket.once('secureConnect', () => {
          connected = true;
          clearTimeout(connectTimer);
        });
        socket.setTimeout(IDLE_MS, () => outgoing.destroy(new Error('no answer')));
      });
      outgoing.on('error', () => {
        clearTimeout(connectTimer);
        reject(connected ? errors.serverNoAnswer(server.url, undefined) : errors.serverUnreachable(server.url));
      });
      outgoing.on('response', (response) => {
        if ((response.statusCode ?? 0) >= 400) {
          const chunks: Buffer[] = [];
          response.on('data', (chunk: Buffer) => chunks.push(chunk));
          response.on('end', () => {
            let body: unknown = null;
            try {
              body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
            } catch {
              // Not JSON: the status alone says it.
            }
            reject(refusalOf({ status: response.statusCode ?? 0, headers: response.headers, body }));
          });
          return;
        }
        const etag = /^"([0-9a-f]{64})"$/.exec(String(response.headers.etag ?? ''))?.[1];
        filename = /filename="([^"]*)"/.exec(String(response.headers['content-disposition'] ?? ''))?.[1];
        let writing = Promise.resolve();
        response.on('data', (chunk: Buffer) => {
          sha256.update(chunk);
          size += chunk.length;
          response.pause();
          writing = writing.then(() => file.write(chunk)).then(() => void response.resume());
          writing.catch((error: unknown) => {
            outgoing.destroy();
            reject(error);
          });
        });
        response.on('aborted', () => reject(errors.serverNoAnswer(server.url, undefined)));
        response.on('end', () => {
          void writing.then(() => {
            // A file whose bytes are not those stored (the ETag is their SHA-256) is never left under its name.
            const digest = sha256.digest('hex');
            if (etag !== undefined && digest !== etag) reject(errors.documentFileDamaged());
            else resolve({ size, sha256: digest, filename });
          }, reject);
        });
      });
      outgoing.end();
    });
  });
}
