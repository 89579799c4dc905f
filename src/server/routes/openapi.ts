import { errors } from '../../errors.js';
import { field } from '../../fields/field-spec.js';
import { buildApiDescription } from '../openapi/description.js';
import { docsPage } from '../openapi/docs-page.js';
import type { Operation } from '../api/operation.js';
import { sendStaticFile, staticFile, type StaticFile } from '../api/static-file.js';
import { ROLE_ROWS } from '../../domain/people/roles.js';
import { INTERFACE_VERSION } from '../openapi/info.js';

/** The docs page and its files, loaded once per process however many apps serve them (they never change). */
let docs: ReturnType<typeof docsPage> | undefined;
const loadDocs = () => (docs ??= docsPage());

/** The path parameter of a docs page asset; an unknown name is a 404. */
const ASSET_PATH_FIELDS = [field.string('asset', { required: true, description: 'A file of the docs page' })];

/**
 * GET /openapi.json and the docs page rendered from it (GET /docs and its files), all public.
 * The interface description and the page are made once, never per request (the description on its
 * first request, the page when the app is created); the document describes exactly the operations
 * the app serves.
 */
export const openApiOperations: readonly Operation[] = [
  {
    method: 'get',
    path: '/openapi.json',
    operationId: 'getApiDescription',
    roles: ROLE_ROWS.noLogin,
    summary: 'This interface description (OpenAPI 3.1)',
    tag: 'interface',
    result: {
      kind: 'static',
      description: 'The interface description',
      media: {
        'application/json': {
          type: 'object',
          required: ['openapi', 'info', 'paths'],
          properties: { openapi: { type: 'string' }, info: { type: 'object' }, paths: { type: 'object' } },
        },
      },
      example: { openapi: '3.1.0', info: { title: 'Clinic public API', version: INTERFACE_VERSION }, paths: {} },
    },
    handler: ({ config, operations }) => {
      // Made on the first request, not with the app: an integrator's tool asks for it now and
      // then, and building it (every operation's schemas, examples and curl lines) was a quarter
      // of `clinic serve`'s time to its first answer (376 against 286 ms without it).
      let document: StaticFile | undefined;
      return (ctx) =>
        sendStaticFile(
          ctx,
          (document ??= staticFile('application/json; charset=utf-8', JSON.stringify(buildApiDescription(operations, config)))),
        );
    },
  },
  {
    method: 'get',
    path: '/docs',
    operationId: 'getDocsPage',
    roles: ROLE_ROWS.noLogin,
    summary: 'The interactive reference rendered from this description',
    description: 'Works offline: its scripts and styles are served by the program itself.',
    tag: 'interface',
    result: { kind: 'static', description: 'The docs page', media: { 'text/html': { type: 'string' } }, example: '<!doctype html>…' },
    handler: () => {
      const { page } = loadDocs();
      return (ctx) => sendStaticFile(ctx, page);
    },
  },
  {
    method: 'get',
    path: '/docs/{asset}',
    operationId: 'getDocsAsset',
    roles: ROLE_ROWS.noLogin,
    summary: 'A script, style sheet or licence of the docs page',
    tag: 'interface',
    pathFields: ASSET_PATH_FIELDS,
    refusals: [errors.notFound()],
    result: {
      kind: 'static',
      description: 'The file',
      media: { 'text/css': { type: 'string' }, 'text/javascript': { type: 'string' }, 'text/plain': { type: 'string' } },
      example: '.swagger-ui{…}',
    },
    handler: () => {
      const { assets } = loadDocs();
      return (ctx) => {
        const asset = assets.get(ctx.params.asset ?? '');
        if (!asset) throw errors.notFound();
        sendStaticFile(ctx, asset);
      };
    },
  },
];
