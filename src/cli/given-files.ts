import type { FileOwner } from '../db/file-modes.js';
import type { CliIo } from './io.js';
import { wrapLines } from './report-error.js';

/**
 * The warning when root ran `what` on a data directory of another user: its files were given to
 * that user and group, whom the server runs as (issue 42, finding 5). On stderr, so that `--json`
 * stays the command's answer.
 */
export function warnGivenTo(io: CliIo, what: string, dataDir: string, owner: FileOwner): void {
  io.stderr(
    wrapLines(
      `warning: clinic ran as root, and the data directory ${dataDir} belongs to uid ${owner.uid}: the files ${what} made were given to ${owner.uid}:${owner.gid}, so that the server, running as that user, can read them. Run clinic as that user (sudo -u) instead.\n`,
    ),
  );
}
