import type { RouterContext } from '@koa/router';
import type { Db } from '../../db/open-database.js';
import type { ResponseOf } from '../../fields/field-spec.js';
import type { Page } from '../../domain/pagination.js';
import {
  isRecordedRead,
  recordDelivery,
  runOnValues,
  valuesOfRequest,
  type AnyUseCase,
  type InputValues,
  type UseCase,
  type UseCaseInput,
  type WorkRunner,
} from '../../domain/use-case.js';
import { apiCaller } from './api-caller.js';
import { wasReplayed } from '../../domain/idempotent-answers.js';
import type { ChangeWatch } from '../writes/change-watch.js';
import type { CommitGroups } from '../writes/commit-groups.js';
import type { ServerConfig } from '../config.js';
import type { AuditedReadGuard } from '../throttles/audited-read-guard.js';
import type { KeyRateLimits } from '../throttles/key-rate-limits.js';
import { MODELS, type ModelName } from '../openapi/models.js';
import type { DownloadResult, ModelResult, OperationSpec } from '../openapi/operation-spec.js';
import type { ClinicContext, ClinicState } from './state.js';

/** What an operation's handler may use; given once, when the app is created. */
export interface OperationDeps {
  db: Db;
  config: ServerConfig;
  /** How requests run their database work: group commit and timed waits for another process's lock. */
  commits: CommitGroups;
  /** Every operation the app serves (the interface description is built from them). */
  operations: readonly Operation[];
  /** Tells a request held for the change feed (GET /events?wait) that an event was committed. */
  changes: ChangeWatch;
  /** When the app was made: the server's start, as GET /health gives it. */
  startedAt: string;
  /** The keys' own limits of requests per minute, counted across every operation. */
  keyLimits: KeyRateLimits;
  /** What a read of patient data must pass before it records its events: the trail's reserve and a key's events per minute. */
  auditedReads: AuditedReadGuard;
}

/**
 * Answers one request. For a `model` result its return value is the response body, sent with
 * the result's status; a `static` or `download` result sends itself. Runs after the key, the
 * module switch and the body were checked (mount-operations.ts).
 */
export type OperationHandler = (ctx: RouterContext<ClinicState>) => unknown;

/**
 * One operation of the API, declared once: method, path, scope, module, inputs, result and
 * refusals (OperationSpec, from which the interface description is built), and its handler. The
 * Koa route is mounted from the same object, so the served route and its description cannot
 * disagree. Most are made from a use case (useCaseOperation), which gives the module, the
 * inputs and the refusals.
 */
export interface Operation extends OperationSpec {
  /** The use case the operation mounts, when it mounts one. */
  useCase?: AnyUseCase;
  /** Makes the handler, once per app: anything a request need not repeat happens here. */
  handler(deps: OperationDeps): OperationHandler;
}

/** The header that marks an answer replaying an earlier request with the same Idempotency-Key. */
const IDEMPOTENT_REPLAYED = 'Idempotent-Replayed';

/** A replay of an earlier request with the same Idempotency-Key is marked so (its OpenAPI description). */
export const REPLAYED_HEADER = {
  [IDEMPOTENT_REPLAYED]: {
    description: 'Present, and `true`, when this answer replays an earlier request with the same Idempotency-Key',
    schema: { type: 'string', enum: ['true'] },
  },
};

/** Marks the answer as a replay (`Idempotent-Replayed: true`) when it is one: every idempotent operation alike. */
export function markReplayed(ctx: ClinicContext, replayed: boolean): void {
  if (replayed) ctx.set(IDEMPOTENT_REPLAYED, 'true');
}

/** What a use case's operation answers with: a JSON model (or a list or page of it), or a stored file. */
type UseCaseResult = ModelResult | DownloadResult;

/**
 * The JSON body a model result sends: the model's response shape, a list of it, or a page of it;
 * a download sends its file itself.
 */
type BodyOf<Result extends UseCaseResult> = Result extends DownloadResult
  ? Promise<void>
  : Result extends { model: infer M extends ModelName }
    ? Result extends { paged: true }
      ? Page<ResponseOf<(typeof MODELS)[M]['fields']>>
      : Result extends { list: true }
        ? ResponseOf<(typeof MODELS)[M]['fields']>[]
        : ResponseOf<(typeof MODELS)[M]['fields']>
    : never;

/** What HTTP adds to a use case: everything of an OperationSpec the use case does not already say. */
type HttpBinding<R, Result extends UseCaseResult, V = unknown> = Omit<
  OperationSpec,
  'summary' | 'module' | 'roles' | 'pathFields' | 'queryFields' | 'headerFields' | 'body' | 'refusals' | 'result'
> & {
  /** The use case's summary unless the API says it otherwise. */
  summary?: string;
  /** A JSON body's example; its schema is the model made of the use case's body fields. */
  bodyExample?: unknown;
  result: Result;
  /**
   * Long polling (GET /events?wait): while the result is `empty`, the request is held for up to
   * `seconds` of its values until the change feed grows (a commit by any process), and run again.
   */
  holdWhileEmpty?: { seconds(values: V): number; empty(result: R): boolean };
} & (R extends BodyOf<Result>
    ? {
        /** The body of the answer (and its headers) from the use case's result; the result itself by default. */
        answer?: Answer<R, Result>;
      }
    : { answer: Answer<R, Result> });

/**
 * Makes the answer from a use case's result: sets headers, picks the body, or sends a file.
 * `delivered` records what the use case records once its result is delivered (`recorded:
 * 'delivery'`, the download's 200): an answer calls it before it sends what it records.
 */
type Answer<R, Result extends UseCaseResult> = (
  ctx: RouterContext<ClinicState>,
  result: R,
  deps: OperationDeps,
  delivered: () => Promise<void>,
) => BodyOf<Result>;

/** Aborts when the client closes its connection before the answer (a held request then stops waiting). */
function clientGone(ctx: RouterContext<ClinicState>): AbortSignal {
  const controller = new AbortController();
  ctx.res.once('close', () => controller.abort());
  return controller.signal;
}

/** The request model made of exactly `fields`: the body a use case declares is described by that name. */
function requestModelOf(fields: UseCaseInput['body']): ModelName {
  const found = (Object.keys(MODELS) as ModelName[]).find((name) => MODELS[name].direction === 'request' && MODELS[name].fields === fields);
  if (found === undefined) throw new Error('a use case takes a JSON body that no request model of openapi/models.ts describes');
  return found;
}

/**
 * The API operation of `useCase`: its module, inputs and refusals are the use case's; the
 * request's path, query, headers and body are validated against them in one step
 * (UseCase.valuesOf), then the work runs through the server's commit groups, in the
 * transaction its access asks for. The result's type is checked against the model the
 * operation says it answers with.
 */
export function useCaseOperation<I extends UseCaseInput, R, Patch extends boolean, const Result extends UseCaseResult>(
  useCase: UseCase<I, R, Patch>,
  http: HttpBinding<R, Result, InputValues<I, Patch>>,
): Operation {
  const { bodyExample, answer, summary, holdWhileEmpty, ...spec } = http as HttpBinding<R, Result, InputValues<I, Patch>> & {
    answer?: Answer<R, Result>;
  };
  const { input } = useCase;
  return {
    ...spec,
    useCase,
    summary: summary ?? useCase.summary,
    roles: useCase.roles,
    ...(useCase.module === undefined ? {} : { module: useCase.module }),
    ...(isRecordedRead(useCase) ? { recordsRead: true } : {}),
    ...(input.path === undefined ? {} : { pathFields: input.path }),
    ...(input.query === undefined ? {} : { queryFields: input.query }),
    ...(input.header === undefined ? {} : { headerFields: input.header }),
    ...(input.body === undefined ? {} : { body: { kind: 'json', model: requestModelOf(input.body), example: bodyExample } }),
    ...(useCase.refusals.length === 0 ? {} : { refusals: useCase.refusals }),
    // A use case that answers once per Idempotency-Key says so on its answer.
    ...(useCase.answersOnce === undefined
      ? {}
      : { result: { ...spec.result, headers: { ...REPLAYED_HEADER, ...('headers' in spec.result ? spec.result.headers : {}) } } }),
    handler: (deps) => async (ctx) => {
      const { db, commits, changes } = deps;
      const caller = apiCaller(ctx, deps.auditedReads);
      const values = valuesOfRequest(
        useCase,
        db,
        { path: ctx.params, query: ctx.query, header: ctx.headers, body: ctx.state.body },
        caller,
      );
      // The feed's last seq is read just before the result: another process's commit between the
      // two reads is then after that seq, so it ends the wait below (or is in the result and
      // costs one more read). Read after the result, a commit landing in between was in neither
      // and the request was held to its end.
      let lastSeq = 0;
      const runner: WorkRunner =
        holdWhileEmpty === undefined
          ? commits
          : {
              run: (access, work) =>
                commits.run(access, () => {
                  const seen = changes.lastSeq();
                  const done = work();
                  lastSeq = seen;
                  return done;
                }),
            };
      // A use case that records audit events runs as a write, so its events share the COMMIT of
      // its turn's group and are durable before the answer's first byte.
      const perform = () => runOnValues(useCase, db, values, caller, runner);
      // Watched from the start: a client gone while the first read waits for its commit group is not held.
      const gone = holdWhileEmpty === undefined ? undefined : clientGone(ctx);
      let result = await perform();
      const seconds = holdWhileEmpty?.seconds(values) ?? 0;
      const release = seconds > 0 && holdWhileEmpty!.empty(result) ? changes.hold(ctx.state.principal?.keyId ?? '') : undefined;
      if (release !== undefined) {
        try {
          const deadline = performance.now() + seconds * 1000;
          while (holdWhileEmpty!.empty(result) && performance.now() < deadline && !gone!.aborted && !changes.closed) {
            await changes.after(lastSeq, deadline - performance.now(), gone);
            result = await perform();
          }
        } finally {
          release();
        }
      }
      markReplayed(ctx, wasReplayed(result));
      return answer === undefined
        ? result
        : answer(ctx, result, deps, () => recordDelivery(useCase, db, { result, values }, caller, commits));
    },
  };
}
