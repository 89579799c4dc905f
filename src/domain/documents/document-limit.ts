/** A patient document's largest size unless `serve --document-limit` (or the desk's upload) says otherwise: 25 MiB, a scanned referral letter's worth many times over. */
export const DEFAULT_DOCUMENT_LIMIT_BYTES = 25 * 1024 * 1024;
