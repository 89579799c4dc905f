import { checkDeskVersion } from '../middleware/check-desk-version.js';
import Koa from 'koa';
import type { Db } from '../../db/open-database.js';
import { ChangeWatch } from '../writes/change-watch.js';
import type { CommitGroups } from '../writes/commit-groups.js';
import type { ServerConfig } from '../config.js';
import { FailedKeyThrottle } from '../throttles/failed-key-throttle.js';
import { AuditedReadGuard } from '../throttles/audited-read-guard.js';
import { KeyRateLimits } from '../throttles/key-rate-limits.js';
import { answerPreflight } from '../middleware/answer-preflight.js';
import { guardHostAndOrigin } from '../middleware/guard-host-and-origin.js';
import { handleErrors } from '../middleware/handle-errors.js';
import { logRequests } from '../middleware/log-requests.js';
import { routeFallback } from '../middleware/route-fallback.js';
import { throttleFailedKeys } from '../middleware/throttle-failed-keys.js';
import { operationsRouter } from './mount-operations.js';
import { networkPolicy } from '../connections/network-policy.js';
import type { Operation } from './operation.js';
import { OPERATIONS } from './api-operations.js';
import type { ClinicState } from './state.js';

/**
 * The HTTP application over an open database. After the request log, errors are rendered by
 * one middleware mounted first; then the `Host` and `Origin` checks, before anything else looks
 * at a request; then a client address with too many failed keys is refused, on any path; the
 * CORS preflights of allowed origins; the operations follow, each mounted from its declaration;
 * a request none of them answers ends in the JSON 404/405 fallback.
 */
export function createApp(
  db: Db,
  commits: CommitGroups,
  config: ServerConfig,
  operations: readonly Operation[] = OPERATIONS,
  changes: ChangeWatch = new ChangeWatch(db),
): Koa<ClinicState> {
  const app = new Koa<ClinicState>();
  // Errors are logged (with request ids) by handleErrors; Koa's own stderr printing would
  // duplicate them without the id.
  app.silent = true;
  const router = operationsRouter({
    db,
    commits,
    config,
    operations,
    changes,
    startedAt: new Date().toISOString(),
    keyLimits: new KeyRateLimits(),
    auditedReads: new AuditedReadGuard(config.dataDir, config.logger),
  });
  app.use(logRequests(config.logger));
  app.use(handleErrors(config.logger));
  app.use(guardHostAndOrigin(networkPolicy(config.listenHost ?? '127.0.0.1', config.allowedHosts, config.allowedOrigins)));
  app.use(
    throttleFailedKeys(
      new FailedKeyThrottle(config.clinicFailedKeysAllowed === undefined ? {} : { clinicAllowed: config.clinicFailedKeysAllowed }),
    ),
  );
  app.use(checkDeskVersion());
  app.use(answerPreflight(router, operations));
  app.use(router.routes());
  app.use(routeFallback([router]));
  return app;
}
