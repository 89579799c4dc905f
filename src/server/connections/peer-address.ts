/**
 * The client's address as the server counts it (the failed-key throttle, the connection limits,
 * the audit trail's `source`): the socket's peer, since the server sits on the clinic PC and
 * trusts no forwarding header; an IPv4 client of a dual-stack socket written as IPv4
 * (`127.0.0.2`, not `::ffff:127.0.0.2`); `unknown` for a socket already gone.
 */
export function peerAddress(socket: { readonly remoteAddress?: string | undefined }): string {
  const address = socket.remoteAddress ?? 'unknown';
  return address.startsWith('::ffff:') && address.includes('.') ? address.slice('::ffff:'.length) : address;
}

/**
 * The PC's own addresses: its integrations, IT's tools and the tests run there. Only these two:
 * the rest of 127.0.0.0/8 counts as another machine, as clinic-api-1.2.md's "Failed keys" says.
 */
const OWN_ADDRESSES: ReadonlySet<string> = new Set(['127.0.0.1', '::1']);

/** Whether `address` (as peerAddress gives it) is the PC's own 127.0.0.1 or ::1. */
export function isOwnAddress(address: string): boolean {
  return OWN_ADDRESSES.has(address);
}
