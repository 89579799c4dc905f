import type { BackupStepOptions, BindParameters, Db, RunResult, SqliteDriver, Statement, Transaction } from './connection-types.js';

// node:sqlite's API as far as this driver uses it (Node 24; the machine's @types/node is 20's).
interface StatementSync {
  run(...params: unknown[]): RunResult;
  get(...params: unknown[]): unknown;
  all(...params: unknown[]): unknown[];
  iterate(...params: unknown[]): IterableIterator<unknown>;
  setAllowUnknownNamedParameters(enabled: boolean): void;
  setReturnArrays(enabled: boolean): void;
}
interface DatabaseSync {
  prepare(sql: string): StatementSync;
  exec(sql: string): void;
  close(): void;
  readonly isOpen: boolean;
  readonly isTransaction: boolean;
}
interface NodeSqlite {
  DatabaseSync: new (path: string, options?: { timeout?: number; readOnly?: boolean }) => DatabaseSync;
  backup(
    source: DatabaseSync,
    destination: string,
    options?: { rate?: number; progress?: (state: { totalPages: number; remainingPages: number }) => void },
  ): Promise<number>;
}

/**
 * node:sqlite binds every JavaScript number as a REAL, so 42 would reach SQL as 42.0 (`'P-' || @n`
 * reads P-42.0, a TEXT column stores '42.0'); better-sqlite3 binds an integral number as an
 * INTEGER. Integral numbers go as BigInt, which node:sqlite binds as INTEGER, so both drivers
 * store and compare the same values.
 */
function asSqlValue(value: unknown): unknown {
  return typeof value === 'number' && Number.isSafeInteger(value) ? BigInt(value) : value;
}

function bindable(params: unknown[]): unknown[] {
  return params.map((param) => {
    if (param === null || typeof param !== 'object' || ArrayBuffer.isView(param)) return asSqlValue(param);
    const named: Record<string, unknown> = {};
    for (const [name, value] of Object.entries(param)) named[name] = asSqlValue(value);
    return named;
  });
}

/**
 * node:sqlite reads rows as objects without a prototype; better-sqlite3's are plain objects. They
 * are given Object's prototype (about 0.1 µs a row), so that a row compares, prints and behaves
 * the same whichever driver read it.
 */
function plainRow<R>(row: R): R {
  if (row !== undefined && row !== null) Object.setPrototypeOf(row, Object.prototype);
  return row;
}

function* plainRows(rows: IterableIterator<unknown>): IterableIterator<unknown> {
  for (const row of rows) yield plainRow(row);
}

class NodeSqliteStatement implements Statement<unknown[], unknown> {
  /** `arrays`: rows are read as arrays (Db.prepareArrays), which keep Array's prototype. */
  constructor(
    private readonly statement: StatementSync,
    private readonly arrays = false,
  ) {
    // better-sqlite3 ignores named values the statement does not use; so does this driver.
    statement.setAllowUnknownNamedParameters(true);
    if (arrays) statement.setReturnArrays(true);
  }
  run(...params: unknown[]): RunResult {
    return this.statement.run(...bindable(params));
  }
  get(...params: unknown[]): unknown {
    const row = this.statement.get(...bindable(params));
    return this.arrays ? row : plainRow(row);
  }
  all(...params: unknown[]): unknown[] {
    const rows = this.statement.all(...bindable(params));
    if (!this.arrays) for (const row of rows) plainRow(row);
    return rows;
  }
  iterate(...params: unknown[]): IterableIterator<unknown> {
    const rows = this.statement.iterate(...bindable(params));
    return this.arrays ? rows : plainRows(rows);
  }
}

/** The statements a transaction runs, prepared once per connection. */
interface TransactionStatements {
  begin: StatementSync;
  beginImmediate: StatementSync;
  commit: StatementSync;
  rollback: StatementSync;
  savepoint: StatementSync;
  release: StatementSync;
  rollbackTo: StatementSync;
}

class NodeSqliteConnection implements Db {
  private statements: TransactionStatements | undefined;

  constructor(
    private readonly sqlite: NodeSqlite,
    private readonly db: DatabaseSync,
  ) {}

  prepare<P extends BindParameters, R>(sql: string): Statement<P, R> {
    return new NodeSqliteStatement(this.db.prepare(sql)) as unknown as Statement<P, R>;
  }

  prepareArrays<P extends BindParameters>(sql: string): Statement<P, unknown[]> {
    return new NodeSqliteStatement(this.db.prepare(sql), true) as unknown as Statement<P, unknown[]>;
  }

  exec(sql: string): void {
    this.db.exec(sql);
  }

  pragma(source: string, options?: { simple?: boolean }): unknown {
    const statement = this.db.prepare(`PRAGMA ${source}`);
    if (!options?.simple) return statement.all();
    const row = statement.get() as Record<string, unknown> | undefined;
    return row === undefined ? undefined : Object.values(row)[0];
  }

  private transactionStatements(): TransactionStatements {
    this.statements ??= {
      begin: this.db.prepare('BEGIN'),
      beginImmediate: this.db.prepare('BEGIN IMMEDIATE'),
      commit: this.db.prepare('COMMIT'),
      rollback: this.db.prepare('ROLLBACK'),
      savepoint: this.db.prepare('SAVEPOINT clinic_nested'),
      release: this.db.prepare('RELEASE clinic_nested'),
      rollbackTo: this.db.prepare('ROLLBACK TO clinic_nested'),
    };
    return this.statements;
  }

  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- as Transaction's
  transaction<F extends (...args: any[]) => unknown>(fn: F): Transaction<F> {
    const wrap = (immediate: boolean) => ((...args: Parameters<F>) => this.runInTransaction(fn, args, immediate)) as F;
    return Object.assign(wrap(false), { immediate: wrap(true) });
  }

  /** What better-sqlite3's transaction() does (lib/methods/transaction.js), statement for statement. */
  private runInTransaction(fn: (...args: unknown[]) => unknown, args: unknown[], immediate: boolean): unknown {
    const statements = this.transactionStatements();
    const nested = this.db.isTransaction;
    const before = nested ? statements.savepoint : immediate ? statements.beginImmediate : statements.begin;
    const after = nested ? statements.release : statements.commit;
    const undo = nested ? statements.rollbackTo : statements.rollback;
    before.run();
    try {
      const result = fn(...args);
      if (result !== null && typeof result === 'object' && typeof (result as { then?: unknown }).then === 'function') {
        throw new TypeError('Transaction function cannot return a promise');
      }
      after.run();
      return result;
    } catch (error) {
      // A failed COMMIT (SQLITE_BUSY, SQLITE_FULL) leaves the transaction open: undo it too.
      if (this.db.isTransaction) {
        undo.run();
        if (nested) after.run();
      }
      throw error;
    }
  }

  async backup(destination: string, options: BackupStepOptions = {}): Promise<void> {
    // One step (every page at once) unless asked otherwise, as with better-sqlite3: see its driver.
    const { onStep } = options;
    await this.sqlite.backup(this.db, destination, {
      rate: options.pagesPerStep ?? 0x7fffffff,
      ...(onStep === undefined ? {} : { progress: ({ totalPages, remainingPages }) => onStep(totalPages - remainingPages, totalPages) }),
    });
  }

  close(): void {
    // Closing twice is allowed, as with better-sqlite3 (node:sqlite throws).
    if (this.db.isOpen) this.db.close();
  }

  get open(): boolean {
    return this.db.isOpen;
  }

  get inTransaction(): boolean {
    return this.db.isTransaction;
  }
}

/** Node's built-in SQLite, or a clear failure on a Node without it (it came with 22.13). */
function loadNodeSqlite(): NodeSqlite {
  const sqlite = process.getBuiltinModule('node:sqlite') as NodeSqlite | undefined;
  if (sqlite === undefined) throw new Error(`node:sqlite needs Node 22.13 or newer; this is Node ${process.version}`);
  return sqlite;
}

/** The node:sqlite driver: needs no addon, so it is the one clinic.exe uses on Windows. */
export function nodeSqliteDriver(): SqliteDriver {
  let sqlite: NodeSqlite | undefined;
  return {
    name: 'node:sqlite',
    open(path, { busyTimeoutMs, readOnly } = {}) {
      sqlite ??= loadNodeSqlite();
      const options = {
        ...(busyTimeoutMs === undefined ? {} : { timeout: busyTimeoutMs }),
        ...(readOnly === true ? { readOnly: true } : {}),
      };
      return new NodeSqliteConnection(sqlite, new sqlite.DatabaseSync(path, options));
    },
  };
}
