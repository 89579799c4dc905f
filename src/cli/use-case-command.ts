import type { Db } from '../db/open-database.js';
import { performUseCase, type Caller, type RawRequest, type UseCase, type UseCaseInput } from '../domain/use-case.js';
import { withDatabase } from './database.js';
import { systemUserActor } from '../domain/audit/system-user.js';
import type { CliIo } from './io.js';
import { emit, type CommonOptions } from './output.js';

/** Who asks from the command line: the operating system's user, as the audit trail names them. */
export function deskCaller(): Caller {
  return { source: 'cli', actor: systemUserActor() };
}

/** What a desk command adds to a use case: how what was typed becomes a request, and how the result is shown. */
export interface DeskBinding<R> {
  /**
   * The request made of the command's arguments and options, over the database so that the
   * desk's references (P-42, INV-2026-7) can be resolved to the ids the use case takes. Made
   * after the module check.
   */
  request(db: Db): RawRequest;
  /** A rule of the desk on the result (a refusal the API does not make); throws to refuse. */
  check?(result: R, db: Db): void;
  /** What --json prints: the API's shape for the same request (the result itself by default). */
  json?(result: R): unknown;
  /** The printout for people. */
  print(result: R, db: Db): string;
}

/**
 * Performs `useCase` for a desk command and prints its result: the command line's one place where
 * a use case's module is checked and its input validated (performUseCase), exactly as the API's
 * operation of the same use case does (src/server/operation.ts).
 */
export async function runUseCaseCommand<I extends UseCaseInput, R, Patch extends boolean>(
  io: CliIo,
  options: CommonOptions,
  useCase: UseCase<I, R, Patch>,
  desk: DeskBinding<R>,
): Promise<void> {
  await withDatabase(options, (db) => {
    const result = performUseCase(useCase, db, () => desk.request(db), deskCaller());
    desk.check?.(result, db);
    emit(io, options, desk.json === undefined ? result : desk.json(result), () => desk.print(result, db));
  });
}
