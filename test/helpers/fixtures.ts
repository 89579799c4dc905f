import { chmodSync, cpSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { after, afterEach, before, beforeEach } from 'node:test';
import { openDatabase, type Db } from '../../src/db/open-database.js';
import type { ServerConfig } from '../../src/server/config.js';
import { makeDataDir, startTestServer, type TestServer } from './test-server.js';

/**
 * The one set-up of a test file's data: a temporary data directory with its database, or the
 * real server over one, made before the suite's tests (or before each, with `each`) and removed
 * after. Call at the top of a `describe`; read the fields inside tests and hooks.
 */

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
  if (options.each) {
    beforeEach(setUp);
    afterEach(tearDown);
  } else {
    before(setUp);
    after(tearDown);
  }
  const get = () => {
    if (!current) throw new Error('useTestDatabase: read its fields inside a test or hook');
    return current;
  };
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
  const get = () => {
    if (!current) throw new Error('useUpgradedRelease: read its fields inside a test or hook');
    return current;
  };
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
