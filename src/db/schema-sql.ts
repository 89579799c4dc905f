import { readFileSync } from 'node:fs';

/**
 * The text of schema.sql. In development it is read from the repository; the bundler
 * (scripts/build.mjs) replaces this whole module with the file's text inlined, so the built
 * program carries its schema and never looks for the file at run time.
 */
export function loadSchemaSql(): string {
  return readFileSync(new URL('../../schema.sql', import.meta.url), 'utf8');
}
