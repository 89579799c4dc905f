import { errors, type AppError } from '../../errors.js';
import { MAX_HEADER_BYTES } from '../api/client-errors.js';
import { DEFAULT_JSON_BODY_LIMIT_BYTES, REQUEST_TIMEOUT_MS } from '../config.js';
import { DEFAULT_DOCUMENT_LIMIT_BYTES } from '../../domain/documents/document-limit.js';

type Factories = typeof errors;

/**
 * One call of every error factory, with arguments of the right type: the interface description
 * lists the codes these produce, so a factory added to src/errors.ts is a compile error
 * here until it is listed, and a code is never spelt twice.
 */
const SAMPLE_ARGUMENTS: { [K in keyof Factories]: Parameters<Factories[K]> } = {
  unauthenticated: [],
  forbidden: ['lookups:read'],
  hostNotAllowed: [],
  originNotAllowed: [],
  moduleDisabled: ['billing'],
  patientNotFound: [],
  invoiceNotFound: [],
  appointmentNotFound: [],
  documentNotFound: [],
  doctorNotFound: [],
  serviceNotFound: [],
  doctorNameTaken: ['3f6c2a9e-8d1b-4c57-9e0a-2b4d6f8a1c3e', 'Dr. Anna Berger'],
  serviceNameTaken: ['5b8d0f2a-4c6e-4a81-b3d5-7e9f1a2c4b6d', 'Kontrolle'],
  doctorRetired: ['3f6c2a9e-8d1b-4c57-9e0a-2b4d6f8a1c3e'],
  serviceRetired: ['5b8d0f2a-4c6e-4a81-b3d5-7e9f1a2c4b6d'],
  apiKeyNotFound: [],
  cacheFolderUnusable: ['/nonexistent/.cache/clinic', 'this user may not write there (EACCES)'],
  patientDuplicate: [[{ patient_number: 'P-000003', name: 'Maria Müller' }], '02.03.1985'],
  appointmentNotStarted: ['A-000017', 'on Wed 02.12.2026 at 14:00 (Europe/Vienna)', 'it cannot be a no-show before it has started'],
  apiKeyNameAmbiguous: ['booking-app', ['0b6ad2a8-5a1e-4f9a-8f0e-6f2c1d3b4a5e', '9c1d0e2f-3a4b-4c5d-8e6f-7a8b9c0d1e2f']],
  webhookNotFound: ['reminders'],
  webhookNameTaken: ['reminders'],
  webhookUrlInsecure: ['crm.praxis.lan'],
  notFound: [],
  methodNotAllowed: [['GET']],
  payloadTooLarge: [DEFAULT_JSON_BODY_LIMIT_BYTES],
  documentTooLarge: [DEFAULT_DOCUMENT_LIMIT_BYTES],
  headersTooLarge: [MAX_HEADER_BYTES],
  requestTimeout: [REQUEST_TIMEOUT_MS / 1000],
  unsupportedMediaType: ['application/json'],
  patientContactRequired: [],
  documentTypeInvalid: [['other']],
  documentEmpty: [],
  paymentExceedsBalance: [],
  appointmentTransitionInvalid: ['completed', 'booked'],
  appointmentOverlap: [['A-000041']],
  paymentNotFound: [],
  feedPositionLost: [1008, 1003],
  preconditionFailed: [3],
  invoiceVoid: [],
  invoiceHasPayments: [],
  refundExceedsPayment: [],
  creditExceedsBalance: [40, '40.00 EUR'],
  invoiceFullyCredited: [],
  idempotencyKeyReused: [],
  invoiceCurrencyMismatch: ['EUR'],
  databaseBusy: [],
  failedKeysBlocked: [42_000],
  failedKeysClinicWide: [42_000],
  keyRateLimited: [42_000, 100],
  auditedReadsLimited: [42_000, 3000],
  auditedReadsPaused: [200 * 1024 * 1024, 256 * 1024 * 1024],
  storageFull: [],
  storageFailed: [],
  noDatabase: ['/var/lib/clinic/data/clinic.db'],
  serverAlreadyRunning: ['/var/lib/clinic/data', 'clinic.lock'],
  dataDirectoryUnusable: ['/var/lib/clinic/data', 'it is not writable (EROFS)'],
  dataDirectoryUnsafe: ['/var/lib/clinic/data/clinic.db-wal', '/etc/passwd'],
  databaseEmpty: ['/var/lib/clinic/data/clinic.db'],
  databaseDamaged: ['/var/lib/clinic/data/clinic.db', 'database disk image is malformed'],
  cannotListen: ['127.0.0.1:8080', 'the address is already in use (EADDRINUSE)'],
  tlsRequired: ['0.0.0.0'],
  tlsFileUnreadable: ['/var/lib/clinic/data/tls/server-key.pem', 'permission denied (EACCES)', 'Run clinic tls init again.'],
  tlsKeyMismatch: ['/etc/clinic/key.pem', '/etc/clinic/cert.pem', 'Give the key the certificate was made for.'],
  tlsCertificateExpired: ['/var/lib/clinic/data/tls/server.pem', '2026-01-01T00:00:00.000Z', 'Run clinic tls init again.'],
  tlsCertificateNotYetValid: ['/var/lib/clinic/data/tls/server.pem', '2027-01-01T00:00:00.000Z', 'Run clinic tls init again.'],
  tlsCertificateNameMismatch: ['/etc/clinic/cert.pem', '192.168.1.20', 'DNS:clinic-pc', 'Run clinic tls init --name 192.168.1.20.'],
  backupFileExists: ['/var/backups/clinic/clinic-2026-11-23.tar.gz'],
  backupNotFound: ['/media/usb/clinic-2026-11-23.tar.gz'],
  backupDamaged: ['the backup is damaged or was altered'],
  backupFailed: ['the archive did not read back as written'],
  fileExists: ['/home/maria/scan.pdf'],
  fileUnreadable: ['/home/maria/scan.pdf', 'the user running clinic may not read it (EACCES)'],
  fileUnwritable: ['/home/maria/scan.pdf', 'there is no room left on its disk (ENOSPC)'],
  documentFileDamaged: [],
  backupFolderUnusable: ['/var/backups/clinic', 'a part of that path is a file, not a folder (ENOTDIR)'],
  dataDirectoryNotEmpty: ['/var/lib/clinic/data'],
  databaseTooNew: [3, 2],
  schemaUpgradeRequired: [6, 10, '/var/lib/clinic/data'],
  autostartNeedsWindows: ['install'],
  autostartSetupFailed: ['Registering the scheduled task', 'Access is denied.'],
  readNotRecorded: [true],
  auditChainBroken: [7, 'its hash is not the hash of its fields'],
  auditCheckpointInvalid: ['/var/lib/clinic/data/audit-anchor', [3]],
  checkFailed: [1],
  internal: [],
};

/** Every code of decisions.md §1 (and the CLI's), in the order errors.ts defines them. */
export function allErrorCodes(): string[] {
  const codes = Object.entries(SAMPLE_ARGUMENTS).map(([name, args]) => {
    const factory = errors[name as keyof Factories] as (...params: unknown[]) => AppError;
    return factory(...(args as unknown[])).code;
  });
  return [...new Set(codes)];
}
