import assert from 'node:assert/strict';
import { chmodSync, cpSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, afterEach, before, beforeEach } from 'node:test';
import { openDatabase, type Db } from '../../src/db/open-database.js';
import type Koa from 'koa';
import type { ClinicState } from '../../src/server/api/state.js';
import type { ServerConfig } from '../../src/server/config.js';
import { runClinic } from './run-cli.js';
import type { startTestServer as StartTestServer, TestServer } from './test-server.js';

/**
 * The one set-up of a test file's data: a temporary data directory with its database, or the
 * real server over one, made before the suite's tests (or before each, with `each`) and removed
 * after. Call at the top of a `describe`; read the fields inside tests and hooks.
 */

/** A new, empty temporary data directory. */
export function makeDataDir(): string {
  return mkdtempSync(join(tmpdir(), 'clinic-test-'));
}

/**
 * The real server, imported (test-server.ts) only once a suite starts one: most files that use
 * these fixtures need a database alone, and the server's modules take over a second of CPU to
 * load, in each of several hundred test processes.
 */
async function startTestServer(...args: Parameters<typeof StartTestServer>): Promise<TestServer> {
  const { startTestServer: start } = await import('./test-server.js');
  return start(...args);
}

/** Runs `setUp` before the enclosing suite's tests and `tearDown` after them, or around each of its tests with `each`. */
function aroundSuite(each: boolean | undefined, setUp: () => void, tearDown: () => void): void {
  if (each) {
    beforeEach(setUp);
    afterEach(tearDown);
  } else {
    before(setUp);
    after(tearDown);
  }
}

/** A reader of what `current` gives once a fixture's hook has made it, refusing, in the name of `fixture`, before then. */
function readInside<T>(fixture: string, current: () => T | undefined): () => T {
  return () => {
    const value = current();
    if (value === undefined) throw new Error(`${fixture}: read its fields inside a test or hook`);
    return value;
  };
}

/** A data directory of the test's own, with an open database. */
export interface TestDatabase {
  readonly db: Db;
  readonly dataDir: string;
}

/** A new data directory and database for the enclosing suite (or each of its tests), closed and removed after. */
export function useTestDatabase(options: { each?: boolean } = {}): TestDatabase {
  let current: { db: Db; dataDir: string } | undefined;
  const setUp = () => {
    const dataDir = makeDataDir();
    current = { dataDir, db: openDatabase(dataDir) };
  };
  const tearDown = () => {
    current?.db.close();
    if (current) rmSync(current.dataDir, { recursive: true, force: true });
    current = undefined;
  };
  aroundSuite(options.each, setUp, tearDown);
  const get = readInside('useTestDatabase', () => current);
  return {
    get db() {
      return get().db;
    },
    get dataDir() {
      return get().dataDir;
    },
  };
}

/** A maker of new, empty data directories for the calling test file, all removed after its tests. */
export function useDataDirs(): () => string {
  const made: string[] = [];
  after(() => {
    for (const dir of made) rmSync(dir, { recursive: true, force: true });
  });
  return () => {
    const dir = makeDataDir();
    made.push(dir);
    return dir;
  };
}

/**
 * A new, empty configuration folder (XDG_CONFIG_HOME, where session.json and desk.json go; spawned
 * programs inherit it) for the enclosing suite, or each of its tests with `each`: set before, and
 * after, XDG_CONFIG_HOME restored and the folder removed. Gives the folder, inside tests and hooks.
 */
export function useConfigHome(options: { each?: boolean; prefix?: string } = {}): () => string {
  let configHome: string | undefined;
  const saved = process.env.XDG_CONFIG_HOME;
  const setUp = () => {
    configHome = mkdtempSync(join(tmpdir(), options.prefix ?? 'clinic-config-'));
    process.env.XDG_CONFIG_HOME = configHome;
  };
  const tearDown = () => {
    if (saved === undefined) delete process.env.XDG_CONFIG_HOME;
    else process.env.XDG_CONFIG_HOME = saved;
    if (configHome !== undefined) rmSync(configHome, { recursive: true, force: true });
    configHome = undefined;
  };
  aroundSuite(options.each, setUp, tearDown);
  return readInside('useConfigHome', () => configHome);
}

/** A node:http server listening on a free port of 127.0.0.1: its port and its base URL. */
export interface LoopbackServer {
  readonly port: number;
  /** `http://127.0.0.1:PORT`. */
  readonly base: string;
}

/** The server that `make` gives, listening on a free loopback port for the enclosing suite: from before its tests, closed with its connections after. */
export function useLoopbackServer(make: () => Server): LoopbackServer {
  let current: { server: Server; port: number } | undefined;
  before(async () => {
    const server = make();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    current = { server, port: (server.address() as AddressInfo).port };
  });
  after(() => {
    current?.server.closeAllConnections();
    current?.server.close();
    current = undefined;
  });
  const get = readInside('useLoopbackServer', () => current);
  return {
    get port() {
      return get().port;
    },
    get base() {
      return `http://127.0.0.1:${get().port}`;
    },
  };
}

/** The Koa app that `make` gives, served by node:http on a free loopback port for the enclosing suite (useLoopbackServer). */
export function useKoaApp(make: () => Koa<ClinicState>): LoopbackServer {
  return useLoopbackServer(() => {
    // Koa settles every request itself; node:http wants no promise back.
    const handle = make().callback();
    return createServer((request, response) => void handle(request, response));
  });
}

/** The real server (test-server.ts) for the enclosing suite: started before its tests, stopped after. */
export function useTestServer(config: Partial<ServerConfig> = {}): TestServer {
  let server: TestServer | undefined;
  before(async () => {
    server = await startTestServer(config);
  });
  after(async () => {
    await server?.close();
    server = undefined;
  });
  return new Proxy({} as TestServer, {
    get(_target, name) {
      if (!server) throw new Error('useTestServer: use the server inside a test or hook');
      const value = server[name as keyof TestServer];
      return typeof value === 'function' ? value.bind(server) : value;
    },
  });
}

/**
 * Gives a data directory copied from a fixture the modes releases before issue 28 left: every
 * folder 0700 and every file 0600 (a checkout's copy has the umask's 0755 and 0644).
 */
export function giveOlderReleaseModes(dataDir: string): void {
  chmodSync(dataDir, 0o700);
  for (const entry of readdirSync(dataDir, { recursive: true, withFileTypes: true })) {
    chmodSync(join(entry.parentPath, entry.name), entry.isDirectory() ? 0o700 : 0o600);
  }
}

/** What a release fixture holds beside its data directory: how it was made, its keys' secrets, a backup. */
const FIXTURE_NOTES = ['README.md', 'keys.json', 'backup.tar.gz'];

/**
 * A private copy of the data directory of a release fixture (test/fixtures/release-*) in `dataDir`
 * (a new one by default), as that release left it: the fixture's notes left out, folders 0700 and
 * files 0600 (giveOlderReleaseModes).
 */
export function copyReleaseFixture(fixture: string, dataDir = makeDataDir()): string {
  cpSync(fixture, dataDir, { recursive: true });
  for (const note of FIXTURE_NOTES) rmSync(join(dataDir, note), { force: true });
  giveOlderReleaseModes(dataDir);
  return dataDir;
}

/**
 * The backup.tar.gz of the release fixture `fixture` restored by `clinic restore`, which must exit 0,
 * into a new data directory for the enclosing suite, removed after. Gives that directory, inside tests and hooks.
 */
export function useRestoredBackup(fixture: string): () => string {
  let target: string | undefined;
  before(async () => {
    target = makeDataDir();
    const restore = await runClinic(['restore', join(fixture, 'backup.tar.gz'), '--json', '--data', target]);
    assert.equal(restore.code, 0, restore.stderr);
  });
  after(() => {
    if (target !== undefined) rmSync(target, { recursive: true, force: true });
    target = undefined;
  });
  return readInside('useRestoredBackup', () => target);
}

/** A release's data directory served by this program, and a copy of it the program never opened. */
export interface UpgradedRelease {
  /** The server on the upgraded copy, started before the suite's tests. */
  readonly server: TestServer;
  readonly dataDir: string;
  /** The data directory as the release left it, to compare with: set with `keepOriginal` only. */
  readonly original: string;
}

/**
 * For the suite it is called in: the data directory of the release fixture `fixture`, upgraded by
 * starting this program's server on a copy of it; with `keepOriginal`, a second copy that this
 * program never opens. Both are removed after the suite.
 */
export function useUpgradedRelease(fixture: string, options: { keepOriginal?: boolean } = {}): UpgradedRelease {
  let current: { server: TestServer; dataDir: string; original: string | undefined } | undefined;
  before(async () => {
    const original = options.keepOriginal ? copyReleaseFixture(fixture) : undefined;
    const dataDir = copyReleaseFixture(fixture);
    current = { server: await startTestServer({}, dataDir), dataDir, original };
  });
  after(async () => {
    await current?.server.close();
    if (current?.original !== undefined) rmSync(current.original, { recursive: true, force: true });
    current = undefined;
  });
  const get = readInside('useUpgradedRelease', () => current);
  return {
    get server() {
      return get().server;
    },
    get dataDir() {
      return get().dataDir;
    },
    get original() {
      const { original } = get();
      if (original === undefined) throw new Error('useUpgradedRelease: the original is kept with keepOriginal only');
      return original;
    },
  };
}
