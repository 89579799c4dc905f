import type { Progress, ProgressListener } from '../domain/maintenance/progress.js';
import { DESK_WIDTH, fileSize } from './desk-format.js';
import type { CliIo } from './io.js';

/**
 * The bar a long command (backup, restore, check) draws on a terminal while it works: one line on
 * stderr, redrawn in place at most every REDRAW_MS and at each new step, cleared when the work
 * ends, so that what the command prints afterwards stands alone. Where stderr is no terminal
 * (a pipe, a file, a cron job's mail) nothing is drawn, and stdout (`--json` too) never sees it.
 *
 *   Backup 3/4 writing the archive [##########..........]  120.3 MiB/308.0 MiB  12/40 files
 */

/** At most ten redraws a second: enough to see it move, few enough to cost nothing. */
const REDRAW_MS = 100;

/** The narrowest bar drawn; a terminal narrower than its line gets the line without the bar. */
const NARROWEST_BAR = 10;

/** A bar being drawn: its listener for the work, and `finish` to clear it. */
export interface ProgressBar {
  listener: ProgressListener | undefined;
  /** Clears the bar's line (whether the work succeeded or not). */
  finish(): void;
}

/** What the bar counts: `120.3 MiB/308.0 MiB  12/40 files`. */
function counts(progress: Progress): string {
  const parts: string[] = [];
  if (progress.totalBytes > 0) parts.push(`${fileSize(Math.min(progress.bytes, progress.totalBytes))}/${fileSize(progress.totalBytes)}`);
  if (progress.totalFiles > 0) parts.push(`${Math.min(progress.files, progress.totalFiles)}/${progress.totalFiles} files`);
  else if (progress.files > 0) parts.push(`${progress.files} files`);
  return parts.join('  ');
}

/** The bar's line for `progress` in `columns`: the step, a bar when the step counts, and its counts. */
export function barLine(title: string, progress: Progress, columns: number): string {
  const label = `${title} ${progress.stepNumber}/${progress.steps} ${progress.step}`;
  const counted = counts(progress);
  const total = progress.totalBytes > 0 ? progress.totalBytes : progress.totalFiles;
  const done = progress.totalBytes > 0 ? progress.bytes : progress.files;
  const room = columns - label.length - counted.length - 6;
  if (total === 0) return `${label}${counted === '' ? ' …' : `  ${counted}`}`;
  if (room < NARROWEST_BAR) return `${label}  ${counted}`;
  const filled = Math.round((Math.min(done, total) / total) * room);
  return `${label} [${'#'.repeat(filled)}${'.'.repeat(room - filled)}]  ${counted}`;
}

/**
 * A bar titled `title` (`Backup`) on stderr when it is a terminal, else none (its listener is
 * undefined, so the work counts nothing). `now` is the clock its redraws are timed by.
 */
export async function openProgressBar(io: CliIo, title: string, now: () => number = Date.now): Promise<ProgressBar> {
  const columns = await io.stderrColumns();
  if (columns === undefined) return { listener: undefined, finish: () => {} };
  // One column short of the terminal: a line that fills it wraps on some terminals, and \r then redraws the wrong line.
  const width = Math.min(columns, DESK_WIDTH) - 1;
  let drawn = false;
  let lastAt = -Infinity;
  let lastStep = 0;
  return {
    listener(progress) {
      const at = now();
      if (progress.stepNumber === lastStep && at - lastAt < REDRAW_MS) return;
      lastStep = progress.stepNumber;
      lastAt = at;
      drawn = true;
      io.stderr(`\r${barLine(title, progress, width)}\x1b[K`);
    },
    finish() {
      if (drawn) io.stderr('\r\x1b[K');
      drawn = false;
    },
  };
}

/** Runs `work` with a bar titled `title` (none where stderr is no terminal), cleared however the work ends. */
export async function withProgressBar<T>(
  io: CliIo,
  title: string,
  work: (listener: ProgressListener | undefined) => Promise<T>,
): Promise<T> {
  const bar = await openProgressBar(io, title);
  try {
    return await work(bar.listener);
  } finally {
    bar.finish();
  }
}
