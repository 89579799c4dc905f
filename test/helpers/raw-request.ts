import { request, type OutgoingHttpHeaders } from 'node:http';

/** An answer as it came over the wire: status, headers and the body's text. */
export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

/** What to send: the path exactly as given (after the base URL's path), any headers, any bytes. */
export interface RawRequest {
  method: string;
  path: string;
  headers?: OutgoingHttpHeaders;
  body?: string | Uint8Array;
  /** The local address to connect from, e.g. 127.0.0.2 (any of 127.0.0.0/8 reaches 127.0.0.1 on Linux). */
  localAddress?: string;
}

/**
 * Sends one request through node:http without the normalisation fetch applies (fetch would
 * re-encode the path, refuse some header values and label a string body text/plain), so that
 * tests control what reaches the server.
 */
export function rawRequest(baseUrl: string, sent: RawRequest): Promise<RawResponse> {
  const url = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        // URL keeps an IPv6 host in brackets; node:http takes it without.
        host: url.hostname.replace(/^\[(.*)\]$/, '$1'),
        port: url.port,
        method: sent.method,
        path: url.pathname + sent.path,
        headers: sent.headers,
        agent: false,
        ...(sent.localAddress === undefined ? {} : { localAddress: sent.localAddress }),
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(sent.body);
  });
}

/** The coded error's `code` of a refusal's body, or undefined for any other body. */
export function refusalCode(response: RawResponse): string | undefined {
  try {
    return (JSON.parse(response.text) as { detail?: { code?: string } }).detail?.code;
  } catch {
    return undefined;
  }
}

/** The names of every CORS response header in `headers`. */
export function corsHeaderNames(headers: RawResponse['headers']): string[] {
  return Object.keys(headers).filter((name) => name.startsWith('access-control-'));
}
