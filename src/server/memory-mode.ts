import { setFlagsFromString } from 'node:v8';

/**
 * From now on V8 favours memory over speed (`--optimize-for-size`): its old generation grows more
 * slowly and is collected sooner, which halved the private memory a server holds after many
 * uploads (bench/README.md, finding 6). `clinic serve` turns it on once it has started, not on
 * the executable's command line (scripts/runtime-flags.mjs): V8 hashes the flag into every code
 * cache, so set from the start it made each process, every desk command included, compile the
 * built-in modules it loads from source instead of from Node's embedded cache. V8 reads the flag
 * as it goes, apart from the young generation's size, which the command line sets to what the flag
 * would (1 MiB a semi-space).
 */
export function favourMemoryOverSpeed(): void {
  setFlagsFromString('--optimize-for-size');
}
