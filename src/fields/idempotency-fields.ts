import { field, type FieldSpec } from './field-spec.js';

/**
 * The Idempotency-Key header of every POST that creates or changes (clinic-api-1.3.md, "Versions,
 * failures, retries"), named as HTTP names it (lowercase): 1–255 visible ASCII characters
 * (decisions.md §7). On the command line it is `--idempotency-key`.
 */
export const IDEMPOTENCY_HEADER_FIELDS = [
  field.string('idempotency-key', {
    minLength: 1,
    maxLength: 255,
    pattern: '^[\\x21-\\x7e]+$',
    description: 'Visible ASCII characters, no spaces: the same request sent again with the same key records nothing twice',
  }),
] as const satisfies readonly FieldSpec[];
