/**
 * Hostile JSON bodies against the real server (`clinic serve` as a child process, through tsx, or
 * $CLINIC_BIN): the time and answer size of each, the worst delay of another client's public GET
 * while three run at once, and the server's memory (VmRSS) before and after.
 *
 *   node --import tsx bench/hostile-json.ts          (CLINIC_BIN=dist/clinic for the built program)
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const dataDir = mkdtempSync(join(tmpdir(), 'clinic-hostile-'));
const bin = process.env.CLINIC_BIN;
const [command, prefix] = bin ? [bin, []] : [process.execPath, ['--import', 'tsx', 'src/main.ts']];

function run(args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, [...prefix, ...args]);
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.on('exit', (code) => (code === 0 ? resolve(out) : reject(new Error(`${args.join(' ')} exited ${code}`))));
  });
}

/** The bodies: each within the 4 MiB limit. */
function bodies(): Record<string, string> {
  const unknownKeys = (n: number, extra = '') => `{${extra}${Array.from({ length: n }, (_, i) => `"a${i}":1`).join(',')}}`;
  const bigString = 'x'.repeat(3_500_000);
  return {
    // The attack of issue 25: 300,000 unknown keys and no required field.
    '300k unknown keys': unknownKeys(300_000),
    // The same keys spread over 300 objects of 1,000 (no one object past a per-object limit).
    '300 objects x 1,000 keys': `{"a":[${Array.from({ length: 300 }, (_, j) => `{${Array.from({ length: 1000 }, (_, i) => `"k${j}_${i}":1`).join(',')}}`).join(',')}]}`,
    '1,000,000-item array': `{"service_ids":[${Array(1_000_000).fill('1').join(',')}]}`,
    '3.5 MB string as title': JSON.stringify({ title: bigString }),
    // The worst bodies within the bounds (src/domain/validation/json-bounds.ts), parsed and walked in full.
    '99 objects x 1,000 keys': `{"a":[${Array.from({ length: 99 }, (_, j) => `{${Array.from({ length: 1000 }, (_, i) => `"k${j}_${i}":1`).join(',')}}`).join(',')}]}`,
    '99,998 empty objects': `{"a":[${Array(99_998).fill('{}').join(',')}]}`,
    '1,024 failing 3,500-char strings': JSON.stringify({
      communication_prefs: Object.fromEntries(Array.from({ length: 32 }, (_, k) => [`k${k}`, Array(32).fill('y'.repeat(3500))])),
    }),
    '2,000,000-deep nesting': `{"title":${'['.repeat(2_000_000)}${']'.repeat(2_000_000)}}`,
  };
}

async function main(): Promise<void> {
  await run(['init', '--data', dataDir]);
  const key = (JSON.parse(await run(['api-key', 'create', '--name', 'bench', '--json', '--data', dataDir])) as { key: string }).key;
  const server = spawn(command, [...prefix, 'serve', '--port', '0', '--data', dataDir]);
  const origin = await new Promise<string>((resolve) => {
    let pending = '';
    server.stdout.on('data', (chunk: Buffer) => {
      pending += chunk.toString();
      const match = /"address":"(http:[^"]+)"/.exec(pending);
      if (match) resolve(match[1]!);
    });
  });
  const rssMb = () => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${server.pid}/status`, 'utf8'))![1]) / 1024;
  const post = async (path: string, body: string) => {
    const started = performance.now();
    const response = await fetch(`${origin}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body,
    });
    const bytes = (await response.arrayBuffer()).byteLength;
    return { status: response.status, ms: performance.now() - started, bytes };
  };
  const publicGet = async () => {
    const started = performance.now();
    await (await fetch(`${origin}/payment-methods`)).arrayBuffer();
    return performance.now() - started;
  };
  for (let i = 0; i < 20; i++) await publicGet(); // warm up
  const rssBefore = rssMb();
  const rows: string[] = [];
  rows.push('| body | path | bytes sent | status | time (ms) | answer bytes |', '|---|---|--:|--:|--:|--:|');
  for (const [name, body] of Object.entries(bodies())) {
    for (const path of ['/appointments', '/patients', `/invoices/${crypto.randomUUID()}/payments`]) {
      const best = [];
      for (let round = 0; round < 3; round++) best.push(await post(path, body));
      const worst = best.reduce((a, b) => (b.ms > a.ms ? b : a));
      rows.push(
        `| ${name} | ${path.replace(/[0-9a-f-]{36}/, '{id}')} | ${body.length} | ${worst.status} | ${worst.ms.toFixed(0)} (max of 3) | ${worst.bytes} |`,
      );
    }
  }
  console.log(rows.join('\n'));
  // Three bodies at once, while another client sends a public GET every 10 ms.
  for (const name of ['300k unknown keys', '99 objects x 1,000 keys', '1,024 failing 3,500-char strings']) {
    const body = bodies()[name]!;
    const delays: number[] = [];
    let polling = true;
    const poller = (async () => {
      while (polling) {
        delays.push(await publicGet());
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    })();
    const started = performance.now();
    const answers = await Promise.all([post('/appointments', body), post('/patients', body), post('/appointments', body)]);
    const allMs = performance.now() - started;
    polling = false;
    await poller;
    console.log(
      `3 concurrent "${name}": all answered in ${allMs.toFixed(0)} ms (statuses ${answers.map((r) => r.status).join(', ')}, ` +
        `answers ${answers.map((r) => r.bytes).join(', ')} bytes); public GET /payment-methods meanwhile: ` +
        `${delays.length} requests, max ${Math.max(...delays).toFixed(0)} ms`,
    );
  }
  const rssAfter = rssMb();
  console.log(`server VmRSS: ${rssBefore.toFixed(0)} MB before the bodies, ${rssAfter.toFixed(0)} MB after`);
  server.kill('SIGTERM');
  await new Promise((resolve) => server.on('exit', resolve));
  rmSync(dataDir, { recursive: true, force: true });
}

await main();
