/**
 * Summarises a V8 CPU profile (`npm run bench -- --profile DIR` writes one per server process):
 * where the server's time went, by function and by file, self time only.
 *
 *   node --import tsx bench/profile-summary.ts DIR/CPU.*.cpuprofile [top]
 *   node --import tsx bench/profile-summary.ts FILE --within appendAuditEvents,eventHash,commit
 *
 * `--within` adds the total time (self and callees) of the functions it names: the share of the
 * samples with such a function anywhere on the stack (e.g. where an audited read's time goes:
 * its event's INSERT, its SHA-256, the group's COMMIT).
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

const { values: options, positionals } = parseArgs({ options: { within: { type: 'string' } }, allowPositionals: true });
const [file, topText] = positionals;
if (!file) throw new Error('usage: profile-summary.ts <file.cpuprofile> [top] [--within name,name]');
const top = Number(topText ?? 25);
const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
const byId = new Map(profile.nodes.map((node) => [node.id, node]));

// Self time of each node: the time of the samples taken while it was on top of the stack.
const selfMicros = new Map<number, number>();
profile.samples.forEach((id, i) => selfMicros.set(id, (selfMicros.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));
const total = [...selfMicros.values()].reduce((sum, micros) => sum + micros, 0);

/** A short place for a script URL: the package, or the path from src/. */
function place(url: string): string {
  if (url === '') return '(native)';
  const inPackage = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (inPackage) return inPackage[1]!;
  const inSource = /\/(src\/.*|dist\/.*|bench\/.*)$/.exec(url);
  return inSource ? inSource[1]! : url.replace(/^.*\//, '');
}

function add(map: Map<string, number>, key: string, micros: number): void {
  map.set(key, (map.get(key) ?? 0) + micros);
}

const byFunction = new Map<string, number>();
const byPlace = new Map<string, number>();
for (const [id, micros] of selfMicros) {
  const { functionName, url, lineNumber } = byId.get(id)!.callFrame;
  add(byFunction, `${functionName || '(anonymous)'}  ${place(url)}${url ? `:${lineNumber + 1}` : ''}`, micros);
  add(byPlace, place(url), micros);
}

const print = (title: string, map: Map<string, number>) => {
  console.log(`\n${title}`);
  for (const [name, micros] of [...map].sort((a, b) => b[1] - a[1]).slice(0, top)) {
    console.log(`${((micros / total) * 100).toFixed(1).padStart(6)} %  ${(micros / 1000).toFixed(0).padStart(7)} ms  ${name}`);
  }
};
console.log(`${(total / 1e6).toFixed(1)} s sampled in ${file}`);
print('self time by function', byFunction);
print('self time by file or package', byPlace);

if (options.within !== undefined) {
  // Each node's parent, to walk a sample's stack up to the root.
  const parentOf = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parentOf.set(child, node.id);
  const names = options.within.split(',').map((name) => name.trim());
  const within = new Map<string, number>(names.map((name) => [name, 0]));
  for (const [id, micros] of selfMicros) {
    const onStack = new Set<string>();
    for (let at: number | undefined = id; at !== undefined; at = parentOf.get(at)) {
      const name = byId.get(at)!.callFrame.functionName;
      if (within.has(name)) onStack.add(name);
    }
    // A function counted once per sample however often it recurses.
    for (const name of onStack) add(within, name, micros);
  }
  console.log('\ntotal time (self and callees) of the named functions');
  for (const [name, micros] of within) {
    console.log(`${((micros / total) * 100).toFixed(1).padStart(6)} %  ${(micros / 1000).toFixed(0).padStart(7)} ms  ${name}`);
  }
}
