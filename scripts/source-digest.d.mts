export const BUNDLE_DIGEST_FILE: string;
export function sourceDigest(): string;
