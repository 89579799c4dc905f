import { createServer, type IncomingMessage, type Server } from 'node:http';

/** One request a gateway got. */
export interface Received {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  body: string;
}

/**
 * A local HTTP server that answers as a gateway would: `answer` decides status and body per
 * request (Twilio's Messages API, or a generic JSON gateway), every request kept.
 */
export async function startGateway(): Promise<{
  url: string;
  received: Received[];
  answer: (status: number, body: unknown) => void;
  close(): Promise<void>;
}> {
  const received: Received[] = [];
  let next: { status: number; body: unknown } = { status: 201, body: {} };
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      received.push({
        method: request.method!,
        path: request.url!,
        headers: request.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      });
      response.writeHead(next.status, { 'content-type': 'application/json' });
      response.end(typeof next.body === 'string' ? next.body : JSON.stringify(next.body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as { port: number }).port}`,
    received,
    answer: (status, body) => {
      next = { status, body };
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
