/**
 * How far a long piece of work has come (a backup of a few hundred MB takes a minute on a busy
 * PC), for a front end to show: the desk draws a bar on a terminal (src/cli/progress-bar.ts).
 * The work reports its steps and what each has done; it never waits for the one who listens.
 */

/** One report: the step under way, and how much of it is done. */
export interface Progress {
  /** What the work does now, for people: `writing the archive`. */
  step: string;
  /** The step's place, from 1, among `steps`. */
  stepNumber: number;
  steps: number;
  /** Bytes done of this step, and in all (0 when the step counts none: it shows no bar). */
  bytes: number;
  totalBytes: number;
  /** Files done of this step, and in all (0 when it counts none, or does not know yet). */
  files: number;
  totalFiles: number;
}

/** Who listens to the progress of a piece of work. */
export type ProgressListener = (progress: Progress) => void;

/** What a step's work reports as it goes. */
export interface StepProgress {
  /** Adds bytes (and files) done. */
  advance(bytes: number, files?: number): void;
  /** Sets the totals once they are known (a restore learns its files from the manifest). */
  expect(totals: { totalBytes?: number; totalFiles?: number }): void;
}

/** A step that counts nothing and reports nothing: work without a listener. */
const SILENT_STEP: StepProgress = { advance: () => {}, expect: () => {} };

/**
 * The steps of one piece of work, named in order: `start(name, totals)` begins the next one and
 * reports it at once, and its StepProgress reports each advance. Without a listener, nothing is
 * reported and nothing is counted.
 */
export function progressSteps(listener: ProgressListener | undefined, names: readonly string[]) {
  let stepNumber = 0;
  return {
    /** Begins the step `name` (one of `names`), with what it will count. */
    start(name: string, totals: { totalBytes?: number; totalFiles?: number } = {}): StepProgress {
      if (listener === undefined) return SILENT_STEP;
      stepNumber = Math.max(stepNumber + 1, names.indexOf(name) + 1);
      const progress: Progress = {
        step: name,
        stepNumber,
        steps: names.length,
        bytes: 0,
        totalBytes: totals.totalBytes ?? 0,
        files: 0,
        totalFiles: totals.totalFiles ?? 0,
      };
      const report = () => listener({ ...progress });
      report();
      return {
        advance(bytes, files = 0) {
          progress.bytes += bytes;
          progress.files += files;
          report();
        },
        expect({ totalBytes, totalFiles }) {
          if (totalBytes !== undefined) progress.totalBytes = totalBytes;
          if (totalFiles !== undefined) progress.totalFiles = totalFiles;
          report();
        },
      };
    },
  };
}
