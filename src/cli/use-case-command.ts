import type { Db } from '../db/open-database.js';
import {
  connectionRunner,
  recordDelivery,
  runOnValues,
  valuesOfRequest,
  type RawRequest,
  type UseCase,
  type UseCaseInput,
} from '../domain/use-case.js';
import { wasReplayed } from '../domain/idempotent-answers.js';
import { withDatabase } from './database.js';
import { deskCaller, deskPcRun } from './desk-identity.js';
import type { CliIo } from './io.js';
import { emit, type CommonOptions } from './output.js';

/**
 * What a desk command adds to a use case: how what was typed becomes a request, what the command
 * does with the result besides showing it, and how it is shown. `S` is what is shown: the result
 * itself, or what `deliver` made of it.
 */
export interface DeskBinding<R, S = R> {
  /**
   * The request made of the command's arguments and options, over the database so that the
   * desk's references (P-42, INV-2026-7) can be resolved to the ids the use case takes. Made
   * after the module check.
   */
  request(db: Db): RawRequest;
  /** A rule of the desk on the result (a refusal the API does not make); throws to refuse. */
  check?(result: R, db: Db): void;
  /**
   * Where the result goes besides the screen, as the API's download sends a document's bytes: a
   * file written (`document save`, `audit export`, `patient export`). What it gives back is what
   * is shown. A use case `recorded: 'delivery'` records its events when `delivered` is called,
   * before the first byte is written.
   */
  deliver?(result: R, db: Db, delivered: () => Promise<void>): Promise<S | undefined>;
  /**
   * Whether the command records nothing itself: on the server for a desk PC, `document save`'s
   * file is fetched by the desk PC from the download operation, which records the read.
   */
  recordsNothing?: boolean;
  /**
   * The desk PC shows the result itself (`audit export`: it writes the file from the pages it
   * fetches): on the server for a desk PC, `deliver` gives undefined and nothing is printed here.
   */
  shownByDeskPc?: boolean;
  /** What --json prints: the API's shape for the same request (what is shown by default). */
  json?(shown: S): unknown;
  /** The printout for people. */
  print(shown: S, db: Db): string;
}

/**
 * Runs `useCase` for a desk command and prints its result: the command line's one binding of a
 * use case, run as the API's operation of the same use case runs it (runUseCase: module, values,
 * transaction, events), on a connection of its own as the operating system's user.
 */
export async function runUseCaseCommand<I extends UseCaseInput, R, Patch extends boolean, S = R>(
  io: CliIo,
  options: CommonOptions,
  useCase: UseCase<I, R, Patch>,
  desk: DeskBinding<R, S>,
): Promise<void> {
  await withDatabase(options, async (db) => {
    const caller = desk.recordsNothing === true ? { ...deskCaller(), actor: null } : deskCaller();
    const runner = connectionRunner(db);
    const values = valuesOfRequest(useCase, db, () => desk.request(db), caller);
    // On a connection of its own the work is done when the call returns (runUseCase's first overload).
    const result = runOnValues(useCase, db, values, caller, runner) as R;
    desk.check?.(result, db);
    const delivered = () => recordDelivery(useCase, db, { result, values }, caller, runner);
    // Without a delivery, what is shown is the result itself (S defaults to R).
    const shown = desk.deliver === undefined ? (result as unknown as S) : await desk.deliver(result, db, delivered);
    if (shown === undefined && desk.shownByDeskPc === true && deskPcRun() !== undefined) return;
    if (shown === undefined) throw new Error('a delivery gave nothing to show');
    // A replay (the same --idempotency-key and command again) shows what was recorded the first time, and says so.
    const replayed = useCase.answersOnce !== undefined && wasReplayed(result) ? replayNote(useCase.answersOnce.what) : '';
    emit(io, options, desk.json === undefined ? shown : desk.json(shown), () => replayed + desk.print(shown, db));
  });
}

/** The line a replay starts with: the command's --idempotency-key answered before. */
export const replayNote = (what: string) => `This key was already used for this ${what}: nothing new was recorded.\n\n`;
