import { request as httpsRequest } from 'node:https';
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { createReadStream, statSync } from 'node:fs';
import type { ClientRequest, IncomingHttpHeaders } from 'node:http';
import { isIP } from 'node:net';
import { basename } from 'node:path';
import { AppError, errors } from '../../errors.js';
import { PROGRAM_VERSION } from '../../version.js';

/**
 * How a desk PC talks to its server (interface 1.3.0, "Versions, failures, retries"): HTTPS
 * trusting only the CA it joined with; 3 s to connect (name lookup, TCP, TLS), else
 * SERVER_UNREACHABLE with nothing sent; once sent, a broken connection or 10 s without a byte
 * moving is a lost answer, sent once more on a new connection (with the same Idempotency-Key),
 * then SERVER_NO_ANSWER. Both exit 3. Every request says the desk's version, and the answer's is
 * checked against it.
 */

export const CONNECT_MS = 3_000;
export const IDLE_MS = 10_000;
export const API_PATH = '/api/public/v1';

/** Where the server is and how it is trusted. */
export interface ServerAddress {
  url: string;
  caPem: string;
}

/** One request to the server. */
export interface ServerRequest {
  method: 'GET' | 'POST' | 'DELETE';
  /** Below the API's prefix: `/desk/commands`. */
  path: string;
  headers?: Record<string, string>;
  body?: unknown;
  /**
   * Files of this PC sent with `body` (POST /desk/commands): the request is then a
   * multipart/form-data form, part `command` the JSON body and each file streamed from disk as a
   * part of its name, read anew for each sending. While bytes move, a sending has no deadline.
   */
  files?: readonly { part: string; path: string }[];
  /** Sent as Idempotency-Key: the request is sent once more after a lost answer, and named in SERVER_NO_ANSWER. */
  idempotencyKey?: string;
  /**
   * Whether it may be sent once more after a lost answer without a key: a read. A GET or DELETE
   * always may; anything else that changes something only with its key (a login twice counts a
   * wrong PIN twice, a join uses its code).
   */
  repeatable?: boolean;
}

export interface ServerAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  body: unknown;
}

/** Why one attempt failed: before anything was sent, or with the request sent and its answer lost. */
class AttemptFailed extends Error {
  constructor(
    readonly stage: 'connect' | 'answer',
    readonly reason: unknown,
  ) {
    super(stage);
  }
}

/** TLS failures that say the server is not the one joined (another CA, another name): never retried. */
const UNTRUSTED = new Set([
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'CERT_SIGNATURE_FAILURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'ERR_TLS_CERT_ALTNAME_INVALID',
  'CERT_UNTRUSTED',
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
  'HOSTNAME_MISMATCH',
]);

/** One attempt: connect within CONNECT_MS, then the answer with no IDLE_MS pause. */
function attempt(server: ServerAddress, req: ServerRequest): Promise<ServerAnswer> {
  const url = new URL(`${API_PATH}${req.path}`, server.url);
  const form = req.files === undefined || req.files.length === 0 ? undefined : formOf(req.body, req.files);
  const payload = req.body === undefined || form !== undefined ? undefined : Buffer.from(JSON.stringify(req.body));
  const host = url.hostname.replace(/^\[|\]$/g, '');
  return new Promise((resolve, reject) => {
    let connected = false;
    const outgoing = httpsRequest({
      host,
      port: url.port === '' ? 443 : Number(url.port),
      path: `${url.pathname}${url.search}`,
      method: req.method,
      ca: server.caPem,
      ...(isIP(host) === 0 ? { servername: host } : {}),
      agent: false,
      headers: {
        accept: 'application/json',
        'clinic-version': PROGRAM_VERSION,
        ...(payload === undefined ? {} : { 'content-type': 'application/json', 'content-length': String(payload.length) }),
        ...(form === undefined ? {} : { 'content-type': form.contentType, 'content-length': String(form.length) }),
        ...(req.idempotencyKey === undefined ? {} : { 'idempotency-key': req.idempotencyKey }),
        ...req.headers,
      },
    });
    const connectTimer = setTimeout(() => outgoing.destroy(new Error('connect timeout')), CONNECT_MS);
    // However bytes trickle, one sending ends within its 3 s to connect and 10 s to answer: a command within 26 s.
    // A transfer has no such end: it lasts while bytes move (its idle timer).
    const deadline = setTimeout(() => form === undefined && outgoing.destroy(new Error('no answer')), CONNECT_MS + IDLE_MS);
    outgoing.once('close', () => clearTimeout(deadline));
    outgoing.on('socket', (socket) => {
      socket.once('secureConnect', () => {
        connected = true;
        clearTimeout(connectTimer);
      });
      // 10 s without a byte moving, once connected: the answer is lost.
      socket.setTimeout(IDLE_MS, () => outgoing.destroy(new Error('no answer')));
    });
    outgoing.on('error', (error) => {
      clearTimeout(connectTimer);
      const code = (error as NodeJS.ErrnoException).code ?? '';
      if (UNTRUSTED.has(code)) reject(errors.serverUntrusted(server.url));
      else reject(new AttemptFailed(connected ? 'answer' : 'connect', error));
    });
    outgoing.on('response', (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('error', (error) => reject(new AttemptFailed('answer', error)));
      response.on('aborted', () => reject(new AttemptFailed('answer', new Error('aborted'))));
      response.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let body: unknown = text;
        try {
          body = text === '' ? null : JSON.parse(text);
        } catch {
          // Not JSON: kept as text for the refusal.
        }
        resolve({ status: response.statusCode ?? 0, headers: response.headers, body });
      });
    });
    if (form === undefined) outgoing.end(payload);
    else form.writeTo(outgoing).catch((error: unknown) => outgoing.destroy(error as Error));
  });
}

/**
 * The multipart/form-data body of `body` with `files`: its Content-Type, its length (known from
 * the files' sizes, so it is sent with a Content-Length), and how to write it, the files streamed.
 */
function formOf(body: unknown, files: readonly { part: string; path: string }[]) {
  const boundary = `clinic-desk-${randomUUID()}`;
  const command = Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="command"\r\nContent-Type: application/json\r\n\r\n${JSON.stringify(body)}\r\n`,
  );
  const heads = files.map((file) =>
    Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="${file.part}"; filename*=utf-8''${encodeURIComponent(basename(file.path))}\r\n` +
        'Content-Type: application/octet-stream\r\n\r\n',
    ),
  );
  const end = Buffer.from(`--${boundary}--\r\n`);
  const sizes = files.map((file) => statSync(file.path).size);
  const length = command.length + heads.reduce((sum, head, i) => sum + head.length + sizes[i]! + 2, 0) + end.length;
  return {
    contentType: `multipart/form-data; boundary=${boundary}`,
    length,
    async writeTo(outgoing: ClientRequest): Promise<void> {
      const write = async (chunk: Uint8Array | string) => {
        if (!outgoing.write(chunk)) await once(outgoing, 'drain');
      };
      await write(command);
      for (const [i, file] of files.entries()) {
        await write(heads[i]!);
        // Exactly the bytes measured, so the body fits its Content-Length even if the file grows meanwhile.
        let sent = 0;
        if (sizes[i]! > 0)
          for await (const chunk of createReadStream(file.path, { start: 0, end: sizes[i]! - 1 })) {
            sent += (chunk as Buffer).length;
            await write(chunk as Buffer);
          }
        if (sent < sizes[i]!) throw new Error(`${file.path} became shorter while it was sent`);
        await write('\r\n');
      }
      outgoing.end(end);
    },
  };
}

/** The desk's and the server's versions agree: the same major, minors at most one apart; else VERSION_UNSUPPORTED. */
function checkServerVersion(answer: ServerAnswer): void {
  const sent = answer.headers['clinic-version'];
  if (typeof sent !== 'string') return;
  const [major, minor] = PROGRAM_VERSION.split('.').map(Number) as [number, number];
  const [serverMajor, serverMinor] = sent.split('.').map(Number) as [number, number];
  if (serverMajor === major && Math.abs(serverMinor - minor) <= 1) return;
  const accepted = [serverMinor - 1, serverMinor, serverMinor + 1].filter((m) => m >= 0).map((m) => `${serverMajor}.${m}`);
  throw errors.versionUnsupported(PROGRAM_VERSION, sent, accepted);
}

/** A refusal answered by the server, as the coded error it carries. */
export function refusalOf(answer: ServerAnswer): AppError {
  const detail = (answer.body as { detail?: unknown } | null)?.detail;
  if (typeof detail === 'object' && detail !== null && !Array.isArray(detail)) {
    const { code, message, ...rest } = detail as { code?: string; message?: string };
    if (typeof code === 'string') return new AppError(answer.status, code, String(message ?? ''), {}, rest);
  }
  // A request the server found invalid (a list of issues): its first, said as the desk says it.
  if (Array.isArray(detail) && detail.length > 0) {
    const first = detail[0] as { loc?: unknown[]; msg?: string };
    return new AppError(
      answer.status,
      'VALIDATION_ERROR',
      `${(first.loc ?? []).join('.')}: ${first.msg ?? 'not valid'}`,
      {},
      { issues: detail },
    );
  }
  return new AppError(answer.status, 'SERVER_ERROR', `the server answered ${answer.status}`);
}

/**
 * Sends `req` to the server: SERVER_UNREACHABLE (nothing was sent) when it cannot be reached,
 * SERVER_UNTRUSTED when it presents another CA, a lost answer sent once more, then SERVER_NO_ANSWER.
 */
export async function askServer(server: ServerAddress, req: ServerRequest): Promise<ServerAnswer> {
  for (let sending = 1; ; sending++) {
    try {
      const answer = await attempt(server, req);
      checkServerVersion(answer);
      return answer;
    } catch (error) {
      if (!(error instanceof AttemptFailed)) throw error;
      // Nothing was sent the first time: the server is not there. A retry that cannot connect lost its answer too.
      if (error.stage === 'connect' && sending === 1) throw errors.serverUnreachable(server.url);
      const repeatable = req.idempotencyKey !== undefined || req.method !== 'POST' || req.repeatable === true;
      if (sending === 2 || !repeatable) throw errors.serverNoAnswer(server.url, req.idempotencyKey, sending);
    }
  }
}
