import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { it } from 'node:test';

// One direction of flow (docs/development.md, "The house"): each floor imports only from floors
// below it, and no file reaches itself through its imports, types included. A type alone
// (`import type`) costs nothing at run time and may look up a floor.
const FLOORS: readonly (readonly [floor: number, room: RegExp])[] = [
  [6, /^src\/(main\.ts|sea\/)/],
  [5, /^src\/(server|cli)\//],
  [4, /^src\/(adapters|autostart)\//],
  [3, /^src\/domain\//],
  [2, /^src\/db\//],
  [1, /^src\/fields\//],
  [0, /^src\/[^/]+\.ts$/],
];
/** The desk may start the server (`clinic serve`) and reach the database file (its infrastructure commands); nothing else crosses. */
const ALLOWED = [
  /^src\/cli\/commands\/serve\.ts -> src\/server\//,
  /^src\/cli\/(database|commands\/(init|serve|backup|check|autostart|tls|version))\.ts -> src\/db\//,
];

const floorOf = (file: string) => FLOORS.find(([, room]) => room.test(file))?.[0] ?? Infinity;
/** `src/server`, `src/domain`, …: a room's files import each other freely (the circle test still watches them). */
const roomOf = (file: string) => file.split('/').slice(0, 2).join('/');
const files = readdirSync('src', { recursive: true, encoding: 'utf8' })
  .filter((f) => f.endsWith('.ts'))
  .map((f) => join('src', f));
/** Each file's imports: of values only (what runs), or with `import type` too. */
const importsOf = (types: 'without types' | 'with types') =>
  new Map(
    files.map((file) => {
      const text = readFileSync(file, 'utf8');
      const pattern =
        types === 'with types'
          ? /^(?:import|export) [^;]*?from '(\.[^']+)'|import\('(\.[^']+)'\)/gms
          : /^(?:import|export) (?!type )[^;]*?from '(\.[^']+)'|import\('(\.[^']+)'\)/gms;
      const specifiers = [...text.matchAll(pattern)].map((m) => m[1] ?? m[2]!);
      return [file, specifiers.map((s) => relative('.', resolve(dirname(file), s)).replace(/\.js$/, '.ts'))] as const;
    }),
  );
const imports = importsOf('without types');

it('imports only from the floors below, but where the desk starts the server or opens its files', () => {
  const climbs = [...imports].flatMap(([file, targets]) =>
    targets
      .filter(
        (target) =>
          floorOf(target) >= floorOf(file) &&
          roomOf(target) !== roomOf(file) &&
          floorOf(target) + floorOf(file) > 0 &&
          !ALLOWED.some((rule) => rule.test(`${file} -> ${target}`)),
      )
      .map((target) => `${file} -> ${target}`),
  );
  assert.deepEqual(climbs, []);
});

// No circle either through the types: a file's types live where nothing it imports needs them back.
it('has no circle of imports, types included', () => {
  const withTypes = importsOf('with types');
  const done = new Set<string>();
  const visit = (file: string, path: readonly string[]): void => {
    if (path.includes(file)) assert.fail(`a circle: ${[...path.slice(path.indexOf(file)), file].join(' -> ')}`);
    if (done.has(file)) return;
    for (const target of withTypes.get(file) ?? []) visit(target, [...path, file]);
    done.add(file);
  };
  for (const file of withTypes.keys()) visit(file, []);
});
