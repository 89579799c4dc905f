import { X509Certificate } from 'node:crypto';
import { isIP } from 'node:net';
import { connect, type DetailedPeerCertificate } from 'node:tls';
import { errors } from '../../errors.js';
import { CONNECT_MS } from './server-requests.js';

/** A fingerprint as typed, colons or not, any case: `3F:A1:…` and `3fa1…` are the same. */
export const plainFingerprint = (text: string) => text.replace(/[:\s]/g, '').toUpperCase();

/** Whether `text` is a SHA-256 fingerprint: 64 hex digits, colons allowed. */
export const isFingerprint = (text: string) => /^[0-9A-F]{64}$/.test(plainFingerprint(text));

/** The certificates the server presented, its own first. */
function presentedChain(peer: DetailedPeerCertificate): X509Certificate[] {
  const chain: X509Certificate[] = [];
  const seen = new Set<string>();
  for (let step: DetailedPeerCertificate | undefined = peer; step?.raw !== undefined; step = step.issuerCertificate) {
    if (seen.has(step.fingerprint256)) break;
    seen.add(step.fingerprint256);
    chain.push(new X509Certificate(step.raw));
  }
  return chain;
}

/**
 * Completes the TLS handshake with `url`'s server and, before anything is sent, requires in the
 * chain it presents a CA certificate of fingerprint `expected` that signed the server's
 * certificate, which must cover the URL's host (interface 1.3.0, "Pairing"); else
 * CA_FINGERPRINT_MISMATCH. Nothing is written to the connection: it is closed, and the CA's PEM
 * returned, to be the only one trusted for this server from then on.
 */
export async function trustedCaOf(url: URL, expected: string): Promise<string> {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const socket = connect({
    host,
    port: url.port === '' ? 443 : Number(url.port),
    ...(isIP(host) === 0 ? { servername: host } : {}),
    // Checked below, by the fingerprint given, instead of by the system's CAs (which never signed a clinic's own).
    rejectUnauthorized: false,
  });
  try {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(errors.serverUnreachable(url.origin)), CONNECT_MS);
      socket.once('secureConnect', () => {
        clearTimeout(timer);
        resolve();
      });
      socket.once('error', () => {
        clearTimeout(timer);
        reject(errors.serverUnreachable(url.origin));
      });
    });
    const chain = presentedChain(socket.getPeerCertificate(true));
    const leaf = chain[0];
    const ca = chain.find((certificate) => plainFingerprint(certificate.fingerprint256) === plainFingerprint(expected));
    const covers = leaf !== undefined && (isIP(host) === 0 ? leaf.checkHost(host) !== undefined : leaf.checkIP(host) !== undefined);
    if (leaf === undefined || ca === undefined || !ca.ca || !leaf.verify(ca.publicKey) || !covers)
      throw errors.caFingerprintMismatch(url.origin, expected);
    return ca.toString();
  } finally {
    socket.destroy();
  }
}
