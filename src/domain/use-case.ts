import type { Db } from '../db/open-database.js';
import type { FieldSpec, ValuesOf } from '../fields/field-spec.js';
import { appendAuditEvents } from './audit/record-audit.js';
import type { AuditRecord } from './audit/audit-event.js';
import type { ChangeRecord } from './changes/change-event.js';
import { appendChangeEvents } from './changes/record-changes.js';
import { type AppError, type LocSource, type ValidationIssue } from '../errors.js';
import { unrecordedReadError } from './classify-error.js';
import { refuseRestricted } from './retention/restriction.js';
import { clinicTimeZone, requireModuleEnabled, type ModuleName } from './settings.js';
import { requireRoles, type Role } from './people/roles.js';
import { normalizePresent, type NormalizeContext } from './validation/values.js';
import { answerOnce, requestFingerprint, type IdempotentOperation } from './idempotent-answers.js';
import { fieldsValidator, secretNames, throwIfIssues, withSecretsHidden } from './validation/validate.js';
import type { Access, Caller, ConnectionRunner, WorkRunner } from './use-case-context.js';

export type { Access, Caller, ConnectionRunner, WorkRunner } from './use-case-context.js';

/**
 * A use case is one thing the clinic can do, declared once and mounted by both front ends: the
 * server adds its method, path, scope and documentation (src/server/api/operation.ts), the command
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

export interface UseCaseDeclaration<I extends UseCaseInput, R, Patch extends boolean = false> {
  /** What it does, for people: the API operation's summary and the command's description start from it. */
  summary: string;
  /** The clinic module that must be on (403 MODULE_DISABLED). */
  module?: ModuleName;
  /**
   * Who may do it: its row of the role matrix (people/roles.ts, ROLE_ROWS), checked for a person
   * before the module (403 ROLE_FORBIDDEN) and given in the API's `x-clinic-roles`.
   */
  roles: readonly Role[];
  input: I;
  /**
   * The body is a JSON merge patch (RFC 7396): its values are the fields it names, an object's
   * keys too, and an absent field stays as stored (declare the body with mergePatchFields).
   */
  mergePatch?: Patch;
  /**
   * It answers once per Idempotency-Key (clinic-api-1.3.md, "Versions, failures, retries"): its
   * input's `header` declares `idempotency-key` (IDEMPOTENCY_HEADER_FIELDS), and a run given one
   * is answerOnce's: the same key and request replays the first result and records nothing
   * (wasReplayed tells a front end so), the key with another request is 422
   * IDEMPOTENCY_KEY_REUSED, a refusal keeps no key. Its operation names the request for the key.
   */
  answersOnce?: IdempotentOperation;
  /** The coded refusals it can give after its input is valid: unknown ids (404) and rules (422). */
  refusals: readonly AppError[];
  access: Access;
  /**
   * It may change the records of an erased patient, for an admin (1.3.0, "Restriction"): a kept
   * invoice's payments and refunds, the erasure itself. Any other change is refused.
   */
  changesRestricted?: boolean;
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
   * When the audit events are appended: with the run, in its transaction (the default), or only
   * once the front end delivers the result (`delivery`, recordDelivery): a download answered 304
   * delivers nothing and records nothing.
   */
  recorded?: 'run' | 'delivery';
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

/** A use case's validators: one per part of the request it takes, and the names of its secret fields. */
interface UseCaseValidators {
  parts: readonly { part: RequestPart; fields: readonly FieldSpec[]; validator: ReturnType<typeof fieldsValidator> }[];
  secrets: ReadonlySet<string>;
}

/** The builders of every declared use case's validators, for buildUseCaseValidators. */
const validatorBuilders: (() => UseCaseValidators)[] = [];

/**
 * Builds every declared use case's validators now: the server's start, so that no request pays
 * for them. A desk command leaves them to be built when its one use case first runs: the command
 * group a command loads declares dozens (the patient group's 95-field body among them), and
 * building them all cost about 5 % of `patient find`'s start.
 */
export function buildUseCaseValidators(): void {
  for (const build of validatorBuilders) build();
}

function validatorsOf(input: UseCaseInput): UseCaseValidators {
  const parts = REQUEST_PARTS.flatMap((part) => {
    const fields = input[part];
    return fields === undefined ? [] : [{ part, fields, validator: fieldsValidator(fields, part) }];
  });
  // A use case's own checks echo what they refuse too: never a secret of its fields.
  const secrets = new Set(parts.flatMap(({ fields }) => [...secretNames(fields)]));
  return { parts, secrets };
}

/** Declares a use case: its validators are built once, when it first runs or at the server's start, never per request. */
export function defineUseCase<const I extends UseCaseInput, R, const Patch extends boolean = false>(
  declaration: UseCaseDeclaration<I, R, Patch>,
): UseCase<I, R, Patch> {
  let built: UseCaseValidators | undefined;
  const validators = () => (built ??= validatorsOf(declaration.input));
  validatorBuilders.push(validators);
  return {
    ...declaration,
    valuesOf(db, given) {
      const { parts, secrets } = validators();
      // No headers given (a caller in process, with no request) is an empty set of them: each is optional.
      const request = given.header === undefined ? { ...given, header: {} } : given;
      const context = lazyTimeZone(db);
      const fieldIssues = parts.flatMap(({ part, validator }) => validator.issues(request[part]));
      throwIfIssues(fieldIssues, withSecretsHidden(declaration.moreIssues?.(request, fieldIssues, context) ?? [], secrets));
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

/** A request as a front end makes it: given whole, or made once the module is known to be on. */
export type RequestOf = RawRequest | (() => RawRequest);

/**
 * The first steps of a run: a person's roles (403 ROLE_FORBIDDEN), the module (403
 * MODULE_DISABLED), then the request's values (one 422 with the issues of every part). A request
 * made by a function (the desk resolving P-42 to an id) is made after the module check, so a
 * command of a module that is off says so whatever it names.
 */
export function valuesOfRequest<I extends UseCaseInput, R, Patch extends boolean>(
  useCase: UseCase<I, R, Patch>,
  db: Db,
  request: RequestOf,
  caller: Caller,
): InputValues<I, Patch> {
  if (caller.roles !== undefined) requireRoles(useCase.roles, caller.roles);
  if (useCase.module !== undefined) requireModuleEnabled(db, useCase.module);
  return useCase.valuesOf(db, typeof request === 'function' ? request() : request);
}

/**
 * The last steps of a run, on valid values: the work in the transaction of its access, through the
 * front end's runner, with the events of its result appended in that transaction (runRecorded);
 * a recorded read whose events cannot be stored shows nothing (507).
 */
export function runOnValues<I extends UseCaseInput, R, Patch extends boolean>(
  useCase: UseCase<I, R, Patch>,
  db: Db,
  values: InputValues<I, Patch>,
  caller: Caller,
  runner: WorkRunner,
): R | Promise<R> {
  return unrecordedWhen(useCase.access === 'read' && recordsOnRun(useCase, caller), () =>
    runner.run(accessOf(useCase, caller, values), () => runRecorded(useCase, db, values, caller)),
  );
}

/**
 * Runs `useCase` on `request` for `caller`: its module, its values, then its work and its events
 * in the transaction of its access (valuesOfRequest, runOnValues). Both front ends run a use case
 * so, each with its runner: the command line on a connection of its own, where the result comes
 * back at once; the server in its commit groups (src/server/writes/commit-groups.ts), where it comes once
 * its group's COMMIT is done.
 */
export function runUseCase<I extends UseCaseInput, R, Patch extends boolean>(
  useCase: UseCase<I, R, Patch>,
  db: Db,
  request: RequestOf,
  caller: Caller,
  runner: ConnectionRunner,
): R;
export function runUseCase<I extends UseCaseInput, R, Patch extends boolean>(
  useCase: UseCase<I, R, Patch>,
  db: Db,
  request: RequestOf,
  caller: Caller,
  runner: WorkRunner,
): R | Promise<R>;
export function runUseCase<I extends UseCaseInput, R, Patch extends boolean>(
  useCase: UseCase<I, R, Patch>,
  db: Db,
  request: RequestOf,
  caller: Caller,
  runner: WorkRunner,
): R | Promise<R> {
  return runOnValues(useCase, db, valuesOfRequest(useCase, db, request, caller), caller, runner);
}

/** `useCase` on a connection of its own, synchronously (runUseCase with connectionRunner): the desk's way, and a test's. */
export function performUseCase<I extends UseCaseInput, R, Patch extends boolean>(
  useCase: UseCase<I, R, Patch>,
  db: Db,
  request: RequestOf,
  caller: Caller,
): R {
  return runUseCase(useCase, db, request, caller, connectionRunner(db));
}

/**
 * Records what a use case declared `recorded: 'delivery'` once the front end delivers its result
 * (the download's 200, not its 304): its audit events in a transaction of their own, durable before
 * anything is delivered; when they cannot be stored, nothing is (507).
 */
export async function recordDelivery<I extends UseCaseInput, R, Patch extends boolean>(
  useCase: UseCase<I, R, Patch>,
  db: Db,
  delivered: { result: R; values: InputValues<I, Patch> },
  caller: Caller,
  runner: WorkRunner,
): Promise<void> {
  const { audit } = useCase;
  const actor = caller.actor;
  if (audit === undefined || actor === null || useCase.recorded !== 'delivery') return;
  await unrecordedWhen(true, () =>
    runner.run('read-then-write', () => {
      const records = audit(delivered.result, delivered.values, db);
      caller.admitAuditedRead?.(records.length);
      appendAuditEvents(db, actor, records);
    }),
  );
}

/** `run`'s outcome, a refusal of a read that could not record its events (full or failing storage) made the 507 that says so. */
function unrecordedWhen<T>(recordedRead: boolean, run: () => T | Promise<T>): T | Promise<T> {
  if (!recordedRead) return run();
  try {
    const outcome = run();
    return outcome instanceof Promise ? outcome.catch((error: unknown) => Promise.reject(unrecordedReadError(error) as Error)) : outcome;
  } catch (error) {
    throw unrecordedReadError(error);
  }
}

/** Whether a use case is a read that records audit events (with its run or on delivery): one whose events cannot be stored shows nothing (507). */
export function isRecordedRead(useCase: AnyUseCase): boolean {
  return useCase.access === 'read' && useCase.audit !== undefined;
}

/** Whether this run appends the use case's audit events itself: unless they wait for delivery, or the caller records nothing (actor null). */
function recordsOnRun(useCase: AnyUseCase, caller: Caller): boolean {
  return useCase.audit !== undefined && useCase.recorded !== 'delivery' && caller.actor !== null;
}

/**
 * The transaction a run needs: its use case's, unless it appends audit events, which read the
 * trail's last event before appending: then BEGIN IMMEDIATE, so no other connection appends in
 * between (and a read becomes a write).
 */
function accessOf(useCase: AnyUseCase, caller: Caller, values: object): Access {
  return recordsOnRun(useCase, caller) || idempotencyKeyOf(useCase, values) !== null ? 'read-then-write' : useCase.access;
}

/** The Idempotency-Key a run of a use case that answers once was given, or null. */
function idempotencyKeyOf(useCase: AnyUseCase, values: object): string | null {
  if (useCase.answersOnce === undefined) return null;
  const header = (values as { header?: { 'idempotency-key'?: string } }).header;
  return header?.['idempotency-key'] ?? null;
}

/**
 * Runs `useCase` on valid values and appends the events of its result, in the caller's
 * transaction: its changes to the change feed, and what it showed or changed to the audit trail.
 */
function runRecorded<I extends UseCaseInput, R, Patch extends boolean>(
  useCase: UseCase<I, R, Patch>,
  db: Db,
  values: InputValues<I, Patch>,
  caller: Caller,
): R {
  // In the work's transaction: an erasure committed meanwhile is seen (1.3.0, "Restriction").
  refuseRestricted(db, values as Readonly<Record<string, unknown>>, caller, useCase);
  const key = idempotencyKeyOf(useCase, values);
  if (key === null) return runAndRecord(useCase, db, values, caller);
  // The request as the use case reads it: its path's ids and its body's values (money in cents).
  const { path, body } = values as { path?: Readonly<Record<string, unknown>>; body?: unknown };
  const fingerprint = requestFingerprint(useCase.answersOnce!.operation, path ?? {}, body ?? {});
  return answerOnce(db, useCase.answersOnce!, key, fingerprint, () => runAndRecord(useCase, db, values, caller));
}

/** runRecorded's work: the run, then its change and audit events. */
function runAndRecord<I extends UseCaseInput, R, Patch extends boolean>(
  useCase: UseCase<I, R, Patch>,
  db: Db,
  values: InputValues<I, Patch>,
  caller: Caller,
): R {
  const result = useCase.run(db, values, caller);
  if (useCase.changes !== undefined) appendChangeEvents(db, useCase.changes(result, values));
  if (recordsOnRun(useCase, caller)) {
    const records = useCase.audit!(result, values, db);
    if (useCase.access === 'read') caller.admitAuditedRead?.(records.length);
    appendAuditEvents(db, caller.actor!, records);
  }
  return result;
}

/** A connection of its own: each piece of work is its own transaction, committed before `run` returns. */
export function connectionRunner(db: Db): ConnectionRunner {
  return { run: (access, work) => inTransaction(db, access, work) };
}

/** Per connection, what commits a transaction left open between calls (the server's commit group). */
const openTransactionClosers = new WeakMap<Db, () => void>();

/**
 * Says how to commit what is open on `db` between calls (the server's commit group, whose COMMIT
 * waits for the end of its turn of the event loop): work that runs its own transaction
 * (inTransaction) then commits it first, so that its own commit is durable when it returns,
 * instead of joining a group whose answer it would not wait for. Inside the group's own work
 * `close` must do nothing (the work's transaction is then the group's savepoint).
 */
export function closeOpenTransactionsWith(db: Db, close: () => void): void {
  openTransactionClosers.set(db, close);
}

/**
 * `work` in the transaction `access` asks for: none for a read, BEGIN for a write, BEGIN
 * IMMEDIATE for a read-then-write (inside an open transaction, a savepoint).
 */
export function inTransaction<T>(db: Db, access: Access, work: () => T): T {
  if (access === 'read') return work();
  // A transaction of its own (a login, a desk PC's command on the server) is not to ride in another's.
  if (db.inTransaction) openTransactionClosers.get(db)?.();
  const transaction = db.transaction(work);
  return access === 'read-then-write' ? transaction.immediate() : transaction();
}
