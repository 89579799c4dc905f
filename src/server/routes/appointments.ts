import Router from '@koa/router';
import { waitWhileBusy } from '../../db/busy-wait.js';
import type { Db } from '../../db/open-database.js';
import { bookAppointment } from '../../domain/appointments/book-appointment.js';
import { API_PREFIX, type ServerConfig } from '../config.js';
import { authorize } from '../middleware/authorize.js';
import { jsonBody } from '../middleware/json-body.js';
import type { ClinicState } from '../state.js';

/** POST /appointments. */
export function appointmentsRouter(db: Db, config: ServerConfig): Router<ClinicState> {
  const router = new Router<ClinicState>({ prefix: API_PREFIX });
  router.post('/appointments', authorize(db, 'appointments:write'), jsonBody(config.jsonBodyLimitBytes), async (ctx) => {
    ctx.body = await waitWhileBusy(() => bookAppointment(db, ctx.state.body, 'api'));
    ctx.status = 201;
  });
  return router;
}
