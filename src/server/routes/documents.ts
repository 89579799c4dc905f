import Router from '@koa/router';
import type { Db } from '../../db/open-database.js';
import { API_PREFIX, type ServerConfig } from '../config.js';
import { authorize } from '../middleware/authorize.js';
import { receiveDocumentUpload } from '../middleware/document-upload.js';
import type { ClinicState } from '../state.js';

/** POST /patients/{patient_id}/documents. */
export function documentsRouter(db: Db, config: ServerConfig): Router<ClinicState> {
  const router = new Router<ClinicState>({ prefix: API_PREFIX });
  router.post('/patients/:patient_id/documents', authorize(db, 'documents:write'), receiveDocumentUpload(db, config), async (ctx) => {
    const upload = ctx.state.upload!;
    ctx.body = await upload.complete(ctx.state.form ?? {});
    ctx.status = 201;
  });
  return router;
}
