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
      { host: url.hostname, port: url.port, method: sent.method, path: url.pathname + sent.path, headers: sent.headers, agent: false },
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
