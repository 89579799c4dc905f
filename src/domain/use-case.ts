import type { Db } from '../db/open-database.js';
import type { FieldSpec, ValuesOf } from '../fields/field-spec.js';
import { appendAuditEvents } from './audit/record-audit.js';
import type { Actor, AuditRecord } from './audit/audit-event.js';
import type { ChangeRecord } from './changes/change-event.js';
import { appendChangeEvents } from './changes/record-changes.js';
import { unrecordedReadError, type AppError, type LocSource, type ValidationIssue } from './errors.js';
import { clinicTimeZone, requireModuleEnabled, type ModuleName } from './settings.js';
import { normalizePresent, type NormalizeContext } from './validation/values.js';
import { fieldsValidator, throwIfIssues } from './validation/validate.js';

/**
 * A use case is one thing the clinic can do, declared once and mounted by both front ends: the
 * server adds its method, path, scope and documentation (src/server/operation.ts), the command
 * line its name, options and printout (src/cli/use-case-command.ts). What it takes, the module it
 * needs, the refusals it can give and how it touches the database are said here only, so the
 * API and the desk cannot check them differently.
 */

/** The parts of a request, in the order their issues are reported (decisions.md §1). */
export const REQUEST_PARTS = ['path', 'query', 'header', 'body'] as const satisfies readonly LocSource[];
export type RequestPart = (typeof REQUEST_PARTS)[number];

/** The field lists a use case takes, by request part. */
export type UseCaseInput = { readonly [P in RequestPart]?: readonly FieldSpec[] };

/** A request as it arrives, not yet validated: the API's path, query, headers and body, or what the desk typed. */
export type RawRequest = { readonly [P in RequestPart]?: unknown };

/**
 * The validated, normalised values of each declared part (ValuesOf): a misspelt field is a
 * compile error. A merge patch's body holds only the fields it names.
 */
export type InputValues<I extends UseCaseInput, Patch extends boolean = false> = {
  -readonly [P in keyof I]-?: I[P] extends readonly FieldSpec[]
    ? P extends 'body'
      ? Patch extends true
        ? Partial<ValuesOf<I[P]>>
        : ValuesOf<I[P]>
      : ValuesOf<I[P]>
    : never;
};

/**
 * How a use case touches the database, which decides its transaction:
 * - `read`: no writes; it may run beside anything.
 * - `write`: its writes are one transaction, all or nothing.
 * - `read-then-write`: what it reads decides what it writes (a balance, an idempotency key), so
 *   no other connection may write between its first read and its commit: BEGIN IMMEDIATE.
 */
export type Access = 'read' | 'write' | 'read-then-write';

/** Who asks: recorded with what they book (an appointment's `booking_source`) and in the audit trail. */
export interface Caller {
  source: 'api' | 'cli';
  /**
   * Who the audit trail names. Null only for work a front end does on its own behalf, such as the
   * heading of a printout whose command already recorded its read: that records nothing.
   */
  actor: Actor | null;
  /**
   * Asked, by a read that records audit events, how many it is about to record, before they are
   * appended; throws to refuse the read (the server's limits on audited reads: a disk below the
   * trail's reserve, a key past its events per minute). Absent: no limit (the desk).
   */
  admitAuditedRead?(events: number): void;
}

export interface UseCaseDeclaration<I extends UseCaseInput, R, Patch extends boolean = false> {
  /** What it does, for people: the API operation's summary and the command's description start from it. */
  summary: string;
  /** The clinic module that must be on (403 MODULE_DISABLED). */
  module?: ModuleName;
  input: I;
  /**
   * The body is a JSON merge patch (RFC 7396): its values are the fields it names, an object's
   * keys too, and an absent field stays as stored (declare the body with mergePatchFields).
   */
  mergePatch?: Patch;
  /** The coded refusals it can give after its input is valid: unknown ids (404) and rules (422). */
  refusals: readonly AppError[];
  access: Access;
  /**
   * Issues the fields' own types cannot find (a cursor, a cross-field rule), reported in the same
   * 422 as theirs; `fieldIssues` are the fields' own, so a rule skips a field already refused.
   */
  moreIssues?(request: RawRequest, fieldIssues: readonly ValidationIssue[], context: NormalizeContext): ValidationIssue[];
  /** The work itself, on valid values; it may refuse with the errors of `refusals`. */
  run(db: Db, values: InputValues<I, Patch>, caller: Caller): R;
  /**
   * What the audit trail records of a successful run: one record per patient whose data the
   * result shows or changed (clinic-api-1.2.md, "Audit trail"). The events are appended in the
   * run's own transaction, so they commit with it, and a read that records becomes a write: its
   * answer waits for that commit. Absent for what shows no patient data.
   */
  audit?(result: R, values: InputValues<I, Patch>, db: Db): readonly AuditRecord[];
  /**
   * What the change feed records of a successful run: one record per record it created or
   * changed (clinic-api-1.2.md, "Change feed"), none when it changed nothing. Appended in the
   * run's own transaction whoever asked, so a change never commits without its event.
   */
  changes?(result: R, values: InputValues<I, Patch>): readonly ChangeRecord[];
}

/** A declared use case, with the validators of its input built once. */
export interface UseCase<I extends UseCaseInput = UseCaseInput, R = unknown, Patch extends boolean = boolean> extends UseCaseDeclaration<
  I,
  R,
  Patch
> {
  /**
   * The values of `request` once every part is valid; otherwise one ValidationError with the
   * issues of every part together.
   */
  valuesOf(db: Db, request: RawRequest): InputValues<I, Patch>;
}

/** A use case of any input and result, as the front ends list them. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a list of use cases holds many value types
export type AnyUseCase = UseCase<any, unknown, any>;

/** The clinic's time zone, read only when a date-time field or a rule asks for it. */
function lazyTimeZone(db: Db): NormalizeContext {
  let timeZone: string | undefined;
  return {
    get timeZone() {
      timeZone ??= clinicTimeZone(db);
      return timeZone;
    },
  };
}

/** Declares a use case: its validators are built here, once, not per request. */
export function defineUseCase<const I extends UseCaseInput, R, const Patch extends boolean = false>(
  declaration: UseCaseDeclaration<I, R, Patch>,
): UseCase<I, R, Patch> {
  const parts = REQUEST_PARTS.flatMap((part) => {
    const fields = declaration.input[part];
    return fields === undefined ? [] : [{ part, fields, validator: fieldsValidator(fields, part) }];
  });
  return {
    ...declaration,
    valuesOf(db, request) {
      const context = lazyTimeZone(db);
      const fieldIssues = parts.flatMap(({ part, validator }) => validator.issues(request[part]));
      throwIfIssues(fieldIssues, declaration.moreIssues?.(request, fieldIssues, context) ?? []);
      const values: Record<string, unknown> = {};
      for (const { part, validator, fields } of parts) {
        values[part] =
          part === 'body' && declaration.mergePatch === true
            ? normalizePresent(fields, request[part] as Record<string, unknown>, context)
            : validator.normalize(request[part], context);
      }
      return values as InputValues<I, Patch>;
    },
  };
}

/**
 * Runs `useCase` on a connection of its own, synchronously, in the transaction its access asks
 * for: how the command line (and a test) performs it. The module is checked first, then the
 * input, then the work. The server runs the same steps, grouping the commits of concurrent
 * requests (src/server/commit-groups.ts).
 */
export function performUseCase<I extends UseCaseInput, R, Patch extends boolean>(
  useCase: UseCase<I, R, Patch>,
  db: Db,
  request: RawRequest | (() => RawRequest),
  caller: Caller,
): R {
  if (useCase.module !== undefined) requireModuleEnabled(db, useCase.module);
  // A request made by a function (the desk resolving P-42 to an id) is made after the module check,
  // so a command of a module that is off says so whatever it names.
  const values = useCase.valuesOf(db, typeof request === 'function' ? request() : request);
  try {
    return inTransaction(db, accessOf(useCase, caller), () => runRecorded(useCase, db, values, caller));
  } catch (error) {
    throw recordsRead(useCase, caller) ? unrecordedReadError(error) : error;
  }
}

/** Whether a use case is a read that records audit events: one whose events cannot be stored shows nothing (507). */
export function isRecordedRead(useCase: AnyUseCase): boolean {
  return useCase.access === 'read' && useCase.audit !== undefined;
}

/** Whether this run of a use case is a recorded read: it is, unless the caller records nothing (actor null). */
export function recordsRead(useCase: AnyUseCase, caller: Caller): boolean {
  return isRecordedRead(useCase) && caller.actor !== null;
}

/**
 * The transaction a run needs: its use case's, unless it records audit events, which read the
 * trail's last event before appending: then BEGIN IMMEDIATE, so no other connection appends in
 * between (and a read becomes a write).
 */
export function accessOf(useCase: AnyUseCase, caller: Caller): Access {
  return useCase.audit !== undefined && caller.actor !== null ? 'read-then-write' : useCase.access;
}

/**
 * Runs `useCase` on valid values and appends the events of its result, in the caller's
 * transaction: its changes to the change feed, and what it showed or changed to the audit trail.
 */
export function runRecorded<I extends UseCaseInput, R, Patch extends boolean>(
  useCase: UseCase<I, R, Patch>,
  db: Db,
  values: InputValues<I, Patch>,
  caller: Caller,
): R {
  const result = useCase.run(db, values, caller);
  if (useCase.changes !== undefined) appendChangeEvents(db, useCase.changes(result, values));
  if (useCase.audit !== undefined && caller.actor !== null) {
    const records = useCase.audit(result, values, db);
    if (useCase.access === 'read') caller.admitAuditedRead?.(records.length);
    appendAuditEvents(db, caller.actor, records);
  }
  return result;
}

/**
 * Work that is not a use case but shows patient data (the desk's overview of a patient, its day
 * sheet), with the audit events of what it showed, committed before it is shown.
 */
export function recordedRead<T>(db: Db, actor: Actor, read: () => T, records: (result: T) => readonly AuditRecord[]): T {
  try {
    return inTransaction(db, 'read-then-write', () => {
      const result = read();
      appendAuditEvents(db, actor, records(result));
      return result;
    });
  } catch (error) {
    throw unrecordedReadError(error);
  }
}

/**
 * How a front end runs database work and learns that it is durable: the command line at once, in
 * the transaction `access` asks for (connectionRunner); the server in groups that share a COMMIT
 * (src/server/commit-groups.ts). Work that outlives one call (an upload's row after its file, a
 * notification's delivery) is given the front end's runner rather than choosing one itself.
 */
export interface WorkRunner {
  run<T>(access: Access, work: () => T): Promise<T>;
}

/** A connection of its own: each piece of work is its own transaction, committed before the promise settles. */
export function connectionRunner(db: Db): WorkRunner {
  return {
    run: async (access, work) => inTransaction(db, access, work),
  };
}

/**
 * `work` in the transaction `access` asks for: none for a read, BEGIN for a write, BEGIN
 * IMMEDIATE for a read-then-write (inside an open transaction, a savepoint).
 */
export function inTransaction<T>(db: Db, access: Access, work: () => T): T {
  if (access === 'read') return work();
  const transaction = db.transaction(work);
  return access === 'read-then-write' ? transaction.immediate() : transaction();
}
