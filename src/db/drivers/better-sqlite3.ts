import Database from 'better-sqlite3';
import type { BackupStepOptions, Db, SqliteDriver, Statement, Transaction } from './connection-types.js';

/** A better-sqlite3 connection as a Db: its statements are better-sqlite3's own, unwrapped. */
class BetterSqlite3Connection implements Db {
  constructor(private readonly db: Database.Database) {}

  prepare<P extends unknown[] | object, R>(sql: string): Statement<P, R> {
    return this.db.prepare(sql) as unknown as Statement<P, R>;
  }

  prepareArrays<P extends unknown[] | object>(sql: string): Statement<P, unknown[]> {
    return this.db.prepare(sql).raw(true) as unknown as Statement<P, unknown[]>;
  }

  exec(sql: string): void {
    this.db.exec(sql);
  }

  pragma(source: string, options?: { simple?: boolean }): unknown {
    return this.db.pragma(source, options);
  }

  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- as Transaction's
  transaction<F extends (...args: any[]) => unknown>(fn: F): Transaction<F> {
    return this.db.transaction(fn) as unknown as Transaction<F>;
  }

  async backup(destination: string, options: BackupStepOptions = {}): Promise<void> {
    // By default one step (progress asks for every remaining page): a copy made in slices
    // restarts whenever another connection writes in between, and a busy server could keep it
    // restarting, unless the caller holds a read transaction across the steps (backupDatabaseInSteps).
    const pages = options.pagesPerStep ?? 0x7fffffff;
    await this.db.backup(destination, {
      progress: ({ totalPages, remainingPages }) => {
        options.onStep?.(totalPages - remainingPages, totalPages);
        return pages;
      },
    });
  }

  close(): void {
    this.db.close();
  }

  get open(): boolean {
    return this.db.open;
  }

  get inTransaction(): boolean {
    return this.db.inTransaction;
  }
}

/**
 * The better-sqlite3 driver. `nativeBinding`: its addon, loaded or as a path (the single
 * executable carries its own, src/sea/native-addon.ts); by default the one built into node_modules.
 */
export function betterSqlite3Driver(nativeBinding?: object | string): SqliteDriver {
  // The addon is loaded by the first connection, not here: choosing the driver costs nothing.
  const options: Database.Options = nativeBinding === undefined ? {} : { nativeBinding: nativeBinding as unknown as string };
  return {
    name: 'better-sqlite3',
    open(path, { busyTimeoutMs, readOnly } = {}) {
      return new BetterSqlite3Connection(
        new Database(path, {
          ...options,
          ...(busyTimeoutMs === undefined ? {} : { timeout: busyTimeoutMs }),
          ...(readOnly === true ? { readonly: true, fileMustExist: true } : {}),
        }),
      );
    },
  };
}
