import { API_PREFIX } from '../config.js';
import { staticFile, type StaticFile } from '../api/static-file.js';
import { loadDocsAssets } from './docs-assets.js';

const DOCS_PATH = `${API_PREFIX}/docs`;

/**
 * The browser may load nothing from outside the program: the page works offline, and a
 * dependency that tried to reach a CDN, a font service or the online validator would be blocked.
 * swagger-ui sets inline styles, and its icons are data: URLs.
 */
const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

const PAGE = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <title>Clinic public API</title>
    <link rel="icon" href="data:,">
    <link rel="stylesheet" href="${DOCS_PATH}/swagger-ui.css">
  </head>
  <body>
    <div id="swagger-ui"></div>
    <script src="${DOCS_PATH}/swagger-ui-bundle.js"></script>
    <script src="${DOCS_PATH}/init.js"></script>
  </body>
</html>
`;

// validatorUrl null: swagger-ui would otherwise send the interface description to an online validator.
const INIT_SCRIPT = `window.ui = SwaggerUIBundle({
  url: ${JSON.stringify(`${API_PREFIX}/openapi.json`)},
  dom_id: '#swagger-ui',
  presets: [SwaggerUIBundle.presets.apis],
  layout: 'BaseLayout',
  deepLinking: true,
  validatorUrl: null,
  displayOperationId: true,
  defaultModelsExpandDepth: 0,
});
`;

function contentTypeOf(name: string): string {
  if (name.endsWith('.css')) return 'text/css; charset=utf-8';
  if (name.endsWith('.js')) return 'text/javascript; charset=utf-8';
  return 'text/plain; charset=utf-8';
}

/** The docs page and its files (swagger-ui-dist's scripts, styles and licences, and its start-up script), by asset name. */
export function docsPage(): { page: StaticFile; assets: ReadonlyMap<string, StaticFile> } {
  const assets = new Map<string, StaticFile>();
  for (const { name, bytes } of loadDocsAssets()) assets.set(name, staticFile(contentTypeOf(name), bytes));
  assets.set('init.js', staticFile(contentTypeOf('init.js'), INIT_SCRIPT));
  const page = staticFile('text/html; charset=utf-8', PAGE, { 'Content-Security-Policy': CONTENT_SECURITY_POLICY });
  return { page, assets };
}
