import Router from '@koa/router';
import { errors } from '../../domain/errors.js';
import { API_PREFIX, type ServerConfig } from '../config.js';
import { buildOpenApiDocument } from '../openapi/document.js';
import { docsPage } from '../openapi/docs-page.js';
import { sendStaticFile, staticFile } from '../static-file.js';
import type { ClinicState } from '../state.js';

/**
 * GET /openapi.json and the docs page rendered from it (GET /docs and its files), all public.
 * The document and the page are made once, when the app is created, never per request.
 */
export function openApiRouter(config: ServerConfig): Router<ClinicState> {
  const document = staticFile('application/json; charset=utf-8', JSON.stringify(buildOpenApiDocument(config)));
  const { page, assets } = docsPage();
  const router = new Router<ClinicState>({ prefix: API_PREFIX });
  router.get('/openapi.json', (ctx) => sendStaticFile(ctx, document));
  router.get('/docs', (ctx) => sendStaticFile(ctx, page));
  router.get('/docs/:asset', (ctx) => {
    const asset = assets.get(ctx.params.asset ?? '');
    if (!asset) throw errors.notFound();
    sendStaticFile(ctx, asset);
  });
  return router;
}
