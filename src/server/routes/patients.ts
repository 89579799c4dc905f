import Router from '@koa/router';
import { waitWhileBusy } from '../../db/busy-wait.js';
import type { Db } from '../../db/open-database.js';
import { createPatient } from '../../domain/patients/create-patient.js';
import { API_PREFIX, type ServerConfig } from '../config.js';
import { authorize } from '../middleware/authorize.js';
import { jsonBody } from '../middleware/json-body.js';
import type { ClinicState } from '../state.js';

/** POST /patients. */
export function patientsRouter(db: Db, config: ServerConfig): Router<ClinicState> {
  const router = new Router<ClinicState>({ prefix: API_PREFIX });
  router.post('/patients', authorize(db, 'patients:write'), jsonBody(config.jsonBodyLimitBytes), async (ctx) => {
    ctx.body = await waitWhileBusy(() => createPatient(db, ctx.state.body));
    ctx.status = 201;
  });
  return router;
}
