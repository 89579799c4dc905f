import type { ContactRule } from './contact-rules.js';

/**
 * The two error types every front end renders: a coded error (AppError) and a schema validation
 * error (ValidationError, the pydantic-style `detail` array). The HTTP error middleware and the
 * CLI's top-level handler are the only places that turn them into output.
 */

/** A refused request with a stable code, an HTTP status and one sentence for a person. */
export class AppError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    /** Extra response headers the status calls for (Allow, WWW-Authenticate, Retry-After). */
    readonly headers: Readonly<Record<string, string>> = {},
    /** Fields `detail` carries besides code and message, where the interface says so (APPOINTMENT_OVERLAP's `conflicts`). */
    readonly details: Readonly<Record<string, unknown>> = {},
  ) {
    super(message);
    this.name = 'AppError';
  }
}

/** The body of a coded refusal, on the API and with --json alike. */
export const refusalBody = (error: AppError) => ({ detail: { code: error.code, message: error.message, ...error.details } });

/** Where a value came from, as the first element of `loc`. */
export type LocSource = 'body' | 'query' | 'path' | 'header';

/** One failing value, in the shape of a pydantic v2 error item. */
export interface ValidationIssue {
  type: string;
  loc: (string | number)[];
  msg: string;
  input?: unknown;
  ctx?: Record<string, unknown>;
}

/** Every failing field of one request at once; rendered as 422 `{"detail": [...]}`. */
export class ValidationError extends Error {
  constructor(readonly issues: ValidationIssue[]) {
    super(issues.map((i) => `${i.loc.join('.')}: ${i.msg}`).join('; '));
    this.name = 'ValidationError';
  }
}

/**
 * A 429 TOO_MANY_REQUESTS whose Retry-After is `waitMs` in whole seconds, rounded up and at
 * least 1, so that a client that waits it is answered.
 */
function tooManyRequests(waitMs: number, message: (seconds: number) => string): AppError {
  const seconds = Math.max(1, Math.ceil(waitMs / 1000));
  return new AppError(429, 'TOO_MANY_REQUESTS', message(seconds), { 'Retry-After': String(seconds) });
}

/** The reminder templates by their request field, as a refusal names them. */
const TEMPLATE_LABELS: Readonly<Record<string, string>> = {
  sms_template: 'The SMS template',
  email_subject: "The e-mail's subject",
  email_template: 'The e-mail template',
};

/** The error factories, one per code of decisions.md §1, so a code is spelt in one place. */
export const errors = {
  unauthenticated: (message = 'A valid API key is required: send "Authorization: Bearer <key>".') =>
    new AppError(401, 'UNAUTHENTICATED', message, { 'WWW-Authenticate': 'Bearer' }),
  forbidden: (scope: string) => new AppError(403, 'FORBIDDEN', `This API key lacks the scope "${scope}" that this endpoint needs.`),
  hostNotAllowed: () =>
    new AppError(
      403,
      'HOST_NOT_ALLOWED',
      'This server does not answer to the name in the Host header; IT can allow a name with `clinic serve --allowed-host NAME`.',
    ),
  originNotAllowed: () =>
    new AppError(
      403,
      'ORIGIN_NOT_ALLOWED',
      'Requests from this web page are refused; IT can allow its origin with `clinic serve --allowed-origin ORIGIN`.',
    ),
  moduleDisabled: (module: string) => new AppError(403, 'MODULE_DISABLED', `The ${module} module is disabled for this clinic.`),
  patientNotFound: (status: 404 | 422 = 404, message = 'No patient has this id.') => new AppError(status, 'PATIENT_NOT_FOUND', message),
  invoiceNotFound: (message = 'No invoice has this id.') => new AppError(404, 'INVOICE_NOT_FOUND', message),
  appointmentNotFound: (message = 'No appointment has this id.') => new AppError(404, 'APPOINTMENT_NOT_FOUND', message),
  documentNotFound: (message = 'This patient has no document with this id.') => new AppError(404, 'DOCUMENT_NOT_FOUND', message),
  doctorNotFound: (message = 'No doctor has this id.') => new AppError(422, 'DOCTOR_NOT_FOUND', message),
  serviceNotFound: (message = 'No service has this id.') => new AppError(422, 'SERVICE_NOT_FOUND', message),
  apiKeyNotFound: (message = 'No API key has this id.') => new AppError(404, 'API_KEY_NOT_FOUND', message),
  /** The desk's `api-key revoke NAME` where more than one key in use has that name: `ids` are theirs, which it takes instead. */
  apiKeyNameAmbiguous: (name: string, ids: readonly string[]) =>
    new AppError(
      409,
      'API_KEY_NAME_AMBIGUOUS',
      `${ids.length} keys in use are named "${name}": ${ids.join(', ')}. Give the id of the one to revoke.`,
      {},
      { ids: [...ids] },
    ),
  /** A name an active doctor already has, compared as search compares words (1.3.0); `existingId` is that doctor's. */
  doctorNameTaken: (existingId: string, existingName: string) =>
    new AppError(
      409,
      'DOCTOR_NAME_TAKEN',
      `An active doctor is already called "${existingName}" (${existingId}); choose another name, or take it all the same with --allow-duplicate.`,
      {},
      { existing_id: existingId },
    ),
  /** A name an active service already has (1.3.0); `existingId` is that service's. */
  serviceNameTaken: (existingId: string, existingName: string) =>
    new AppError(
      409,
      'SERVICE_NAME_TAKEN',
      `An active service is already called "${existingName}" (${existingId}); choose another name, or take it all the same with --allow-duplicate.`,
      {},
      { existing_id: existingId },
    ),
  /** Booking or rescheduling with a doctor who was retired (1.3.0); `id` is theirs. */
  doctorRetired: (id: string, name?: string) =>
    new AppError(
      422,
      'DOCTOR_RETIRED',
      `${name === undefined ? 'This doctor' : name} is retired and can no longer be booked; \`clinic doctor reinstate\` makes them bookable again.`,
      {},
      { id },
    ),
  /** Booking or rescheduling with a service that was retired (1.3.0); `id` is its. */
  serviceRetired: (id: string, name?: string) =>
    new AppError(
      422,
      'SERVICE_RETIRED',
      `${name === undefined ? 'This service' : `The service ${name}`} is retired and can no longer be booked; \`clinic service reinstate\` makes it bookable again.`,
      {},
      { id },
    ),
  notFound: () => new AppError(404, 'NOT_FOUND', 'There is no such endpoint.'),
  methodNotAllowed: (allowed: readonly string[]) =>
    new AppError(405, 'METHOD_NOT_ALLOWED', `This endpoint allows ${allowed.join(', ')} only.`, {
      Allow: allowed.join(', '),
    }),
  payloadTooLarge: (limitBytes: number) => new AppError(413, 'PAYLOAD_TOO_LARGE', `The request body is larger than ${limitBytes} bytes.`),
  documentTooLarge: (limitBytes: number) =>
    new AppError(413, 'DOCUMENT_TOO_LARGE', `The document is larger than the limit of ${limitBytes} bytes.`),
  headersTooLarge: (limitBytes: number) =>
    new AppError(431, 'HEADERS_TOO_LARGE', `The request's headers are larger than ${limitBytes} bytes in all; the request was not read.`),
  requestTimeout: (seconds: number) =>
    new AppError(408, 'REQUEST_TIMEOUT', `The request did not arrive in full within ${seconds} seconds; nothing of it was processed.`),
  unsupportedMediaType: (expected: string) => new AppError(415, 'UNSUPPORTED_MEDIA_TYPE', `The request body must be ${expected}.`),
  /** The message names the rule in force and `detail.rule` holds it (clinic-api-1.3.md): a desk knows what to ask for, or whom. */
  patientContactRequired: (rule: Exclude<ContactRule, 'none'> = 'email-and-mobile') =>
    new AppError(
      422,
      'PATIENT_CONTACT_REQUIRED',
      `A patient needs ${rule === 'email-and-mobile' ? 'both an email address and a mobile number' : 'an email address or a mobile number'}. The clinic's contact rule is ${rule}.`,
      {},
      { rule },
    ),
  documentTypeInvalid: (allowed: readonly string[]) =>
    new AppError(422, 'DOCUMENT_TYPE_INVALID', `The document type must be one of: ${allowed.join(', ')}.`),
  documentEmpty: () => new AppError(422, 'DOCUMENT_EMPTY', 'The uploaded file is empty.'),
  /** `balance` as people read it (`6.00 EUR`), so the desk and an integration see what may still be paid. */
  paymentExceedsBalance: (balance?: string) =>
    new AppError(
      422,
      'PAYMENT_EXCEEDS_BALANCE',
      balance === undefined
        ? "The amount is more than the invoice's remaining balance."
        : `The amount is more than the invoice's remaining balance of ${balance}.`,
    ),
  appointmentTransitionInvalid: (from: string, to: string) =>
    new AppError(409, 'APPOINTMENT_TRANSITION_INVALID', `An appointment that is ${from} cannot become ${to}.`),
  /** `conflicts`: the other appointments' numbers, by start. */
  appointmentOverlap: (conflicts: readonly string[]) =>
    new AppError(
      409,
      'APPOINTMENT_OVERLAP',
      `The doctor already has ${conflicts.join(', ')} at that time.`,
      {},
      { conflicts: [...conflicts] },
    ),
  /**
   * The desk's rule (src/domain/desk/desk-rules.ts): an active patient of the same name and date of
   * birth exists already. `existing` names them (`P-000003 Maria Müller`); `patient_numbers` carries their numbers.
   */
  patientDuplicate: (existing: readonly { patient_number: string; name: string }[], born: string) =>
    new AppError(
      409,
      'PATIENT_DUPLICATE',
      `${existing.map((patient) => `${patient.patient_number} ${patient.name}`).join(', ')}, born ${born}, ${existing.length === 1 ? 'is' : 'are'} already a patient of this name and date of birth: nothing was created.`,
      {},
      { patient_numbers: existing.map((patient) => patient.patient_number) },
    ),
  /** The desk's rule (src/domain/desk/desk-rules.ts): a status that says an appointment took place, or was missed, before its time. */
  appointmentNotStarted: (appointmentNumber: string, startsAt: string, why: string) =>
    new AppError(409, 'APPOINTMENT_NOT_STARTED', `${appointmentNumber} starts ${startsAt}: ${why}. Its status was left as it is.`),
  paymentNotFound: (message = 'No payment has this id.') => new AppError(404, 'PAYMENT_NOT_FOUND', message),
  /**
   * GET /events `after` a position that a restore left behind (issue 39): the consumer's events
   * after `restartAfter` may describe changes the restored database does not hold.
   */
  feedPositionLost: (after: number, restartAfter: number) =>
    new AppError(
      409,
      'FEED_POSITION_LOST',
      `Position ${after} of the change feed was handed out before the clinic's database was restored from a backup, and is lost: what the events after seq ${restartAfter} said may no longer be so. Start again with after=${restartAfter}.`,
      {},
      { restart_after: restartAfter },
    ),
  /**
   * `ifMatch` as sent, when it holds no entity tag at all (`If-Match: 2`, unquoted): then the
   * message says how to write one, since "changed meanwhile" would not be true.
   */
  preconditionFailed: (version: number, ifMatch?: string) =>
    new AppError(
      412,
      'PRECONDITION_FAILED',
      ifMatch === undefined
        ? `The record was changed meanwhile: it is at version ${version} now. Read it again, then retry.`
        : `If-Match names no version: an entity tag is quoted, as the ETag header gives it (If-Match: "${version}" for version ${version}, the one it is at now).`,
    ),
  invoiceVoid: () => new AppError(409, 'INVOICE_VOID', 'This invoice is void: it takes no payment.'),
  invoiceHasPayments: (paid?: string) =>
    new AppError(
      409,
      'INVOICE_HAS_PAYMENTS',
      paid === undefined
        ? 'This invoice has payments: refund them before voiding it.'
        : `This invoice has ${paid} paid: refund the payments before voiding it.`,
    ),
  /** `refundable` as people read it (`6.00 EUR`): what the payment can still give back. */
  refundExceedsPayment: (refundable?: string) =>
    new AppError(
      422,
      'REFUND_EXCEEDS_PAYMENT',
      refundable === undefined
        ? 'The amount is more than can still be refunded of this payment.'
        : `The amount is more than can still be refunded of this payment: ${refundable}.`,
    ),
  /** `balance`: what the invoice still asks, as a JSON number in its currency; `shown` as people read it (`6.00 EUR`). */
  creditExceedsBalance: (balance: number, shown: string) =>
    new AppError(
      422,
      'CREDIT_EXCEEDS_BALANCE',
      `The amount is more than the invoice still asks: ${shown}. A credit note lowers what is owed; money already paid is given back with a refund.`,
      {},
      { balance },
    ),
  /** A credit note for all that an invoice asks while nothing is paid on it: that is a void (1.3.0). */
  invoiceFullyCredited: () =>
    new AppError(
      409,
      'INVOICE_FULLY_CREDITED',
      'Nothing is paid on this invoice and the credit note would take all it asks: void the invoice instead (`clinic invoice void`).',
    ),
  idempotencyKeyReused: () => new AppError(422, 'IDEMPOTENCY_KEY_REUSED', 'This Idempotency-Key was already used for a different request.'),
  /** `owed`: the currencies of the patient's open invoices, by code (two after a refund reopened one). */
  invoiceCurrencyMismatch: (...owed: string[]) =>
    new AppError(
      422,
      'INVOICE_CURRENCY_MISMATCH',
      owed.length === 1
        ? `This patient has open invoices in ${owed[0]}; a new invoice must use ${owed[0]} until they are paid.`
        : `This patient has open invoices in ${owed.join(' and ')}; a new invoice must use one of them until they are paid.`,
    ),
  databaseBusy: () =>
    new AppError(503, 'DATABASE_BUSY', 'The database is busy with another writer; nothing was changed. Retry shortly.', {
      'Retry-After': '1',
    }),
  /** A client address blocked after too many answers 401, for `waitMs` more (clinic-api-1.2.md, "Failed keys"). */
  failedKeysBlocked: (waitMs: number) =>
    tooManyRequests(
      waitMs,
      (seconds) =>
        `Too many requests from this address had no valid API key; every request from it is refused for ${seconds} more second(s).`,
    ),
  /** An address that used no valid key lately, while the clinic-wide budget of failed keys is spent, for `waitMs` more (docs/design-choices.md, "Failed keys"). */
  failedKeysClinicWide: (waitMs: number) =>
    tooManyRequests(
      waitMs,
      (seconds) =>
        `Too many requests from many addresses had no valid API key; for ${seconds} more second(s) only addresses that used a valid key within the last hour are served.`,
    ),
  /** A key made with `--rate-limit` that has made its `keyLimit` requests this minute. */
  keyRateLimited: (waitMs: number, keyLimit: number) =>
    tooManyRequests(
      waitMs,
      (seconds) => `This API key may make ${keyLimit} request(s) per minute and has made them this minute; retry in ${seconds} second(s).`,
    ),
  /**
   * A key without a limit of its own whose reads have recorded `perMinute` audit events this
   * minute (docs/design-choices.md, "The trail's size, reads and anchor").
   */
  auditedReadsLimited: (waitMs: number, perMinute: number) =>
    tooManyRequests(
      waitMs,
      (seconds) =>
        `This API key has been shown ${perMinute} patients' data this minute (each patient shown is recorded in the audit trail; a key without --rate-limit may be shown ${perMinute} a minute); retry in ${seconds} second(s).`,
    ),
  /** The data directory's disk is below the audit trail's reserve: reads that record events are refused while writes go on. */
  auditedReadsPaused: (freeBytes: number, reserveBytes: number) =>
    new AppError(
      507,
      'STORAGE_FAILED',
      `This answer shows patient data, and its audit event cannot be stored: the clinic computer's disk has ${Math.floor(freeBytes / 1024 / 1024)} MiB free, less than the ${Math.floor(reserveBytes / 1024 / 1024)} MiB kept for payments and changes to patients, so reads of patient data are paused and nothing is shown. Free space on the data directory's disk; reads resume by themselves.`,
    ),
  storageFull: () =>
    new AppError(
      507,
      'STORAGE_FULL',
      "The clinic computer's disk is full; nothing was stored. Free space on the data directory's disk, then retry.",
    ),
  storageFailed: () =>
    new AppError(
      500,
      'STORAGE_FAILED',
      "The clinic's data could not be read or written (a disk, permission or database-file error); nothing was stored. It has been logged; `clinic check` tells more.",
    ),
  noDatabase: (path: string) =>
    new AppError(
      404,
      'NO_DATABASE',
      `There is no clinic database at ${path}. Point at the clinic's data directory with --data DIR or the CLINIC_DATA environment variable; \`clinic init --data DIR\` creates a new, empty one.`,
    ),
  serverAlreadyRunning: (dataDir: string, lockFile: string) =>
    new AppError(
      409,
      'SERVER_ALREADY_RUNNING',
      `Another clinic server is already running on the data directory ${dataDir} (it holds ${lockFile}); stop it first.`,
    ),
  dataDirectoryUnusable: (path: string, reason: string) =>
    new AppError(
      500,
      'DATA_DIRECTORY_UNUSABLE',
      `clinic cannot use ${path}: ${reason}. Give the user running clinic read and write access to it, or point --data (or CLINIC_DATA) at the clinic's data directory.`,
    ),
  /** A link planted in the data directory: followed, it would let whoever can write the folder aim clinic's writes and chmods elsewhere. */
  dataDirectoryUnsafe: (path: string, target: string) =>
    new AppError(
      409,
      'DATA_DIRECTORY_UNSAFE',
      `${path} is a symbolic link (to ${target}); clinic never follows a link inside its data directory, so nothing was read or changed. Remove the link and put the real file there, or point --data at the folder that holds it.`,
    ),
  databaseEmpty: (path: string) =>
    new AppError(
      409,
      'DATABASE_EMPTY',
      `The database file ${path} is empty (0 bytes): it is not a clinic database, and it was left as it is. For a new clinic, \`clinic init\` sets it up; if it held the clinic's data, restore the latest backup with \`clinic restore\` into a new data directory.`,
    ),
  databaseDamaged: (path: string, finding: string) =>
    new AppError(
      500,
      'DATABASE_DAMAGED',
      `The database ${path} is damaged (${finding}); the server did not start and nothing was changed. \`clinic check\` lists every finding; restore the latest backup with \`clinic restore\`.`,
    ),
  cannotListen: (address: string, reason: string) =>
    new AppError(
      500,
      'CANNOT_LISTEN',
      `The server cannot listen on ${address}: ${reason}. Choose another --port, or stop the program using it.`,
    ),
  /** `serve --host` off this PC without a certificate: patient data would cross the network in clear text. */
  tlsRequired: (host: string) =>
    new AppError(
      400,
      'TLS_REQUIRED',
      `serve listens on ${host}, which other computers reach, and has no TLS certificate, so patient data would cross the network unencrypted; the server did not start. Run \`clinic tls init --name <this PC's name or address>\` (docs/install.md, "Serve the clinic's network over HTTPS"), or give --tls-cert and --tls-key; --insecure-http serves plain HTTP all the same.`,
    ),
  /** A certificate or key file that cannot be read, or holds no certificate (key) of the kind needed; `remedy` says what to do. */
  tlsFileUnreadable: (path: string, reason: string, remedy: string) =>
    new AppError(422, 'TLS_FILE_UNREADABLE', `The TLS file ${path} cannot be used: ${reason}. ${remedy}`),
  tlsKeyMismatch: (keyPath: string, certificatePath: string, remedy: string) =>
    new AppError(422, 'TLS_KEY_MISMATCH', `The key ${keyPath} is not the key of the certificate ${certificatePath}. ${remedy}`),
  /** `notAfter` as ISO 8601 (UTC). */
  tlsCertificateExpired: (path: string, notAfter: string, remedy: string) =>
    new AppError(422, 'TLS_CERTIFICATE_EXPIRED', `The certificate ${path} expired at ${notAfter}. ${remedy}`),
  /** `notBefore` as ISO 8601 (UTC): made on a PC whose clock is ahead, or this PC's clock is behind. */
  tlsCertificateNotYetValid: (path: string, notBefore: string, remedy: string) =>
    new AppError(
      422,
      'TLS_CERTIFICATE_NOT_YET_VALID',
      `The certificate ${path} is valid only from ${notBefore}; check this PC's clock. ${remedy}`,
    ),
  /** `names`: the names the certificate covers, as its subjectAltName lists them. */
  tlsCertificateNameMismatch: (path: string, host: string, names: string, remedy: string) =>
    new AppError(
      422,
      'TLS_CERTIFICATE_NAME_MISMATCH',
      `The certificate ${path} does not cover ${host}, the address serve listens on (it covers ${names || 'no name'}). ${remedy}`,
    ),
  backupFileExists: (path: string) =>
    new AppError(409, 'BACKUP_FILE_EXISTS', `${path} already exists; a backup never overwrites a file. Choose a new file name.`),
  backupNotFound: (path: string) => new AppError(404, 'BACKUP_NOT_FOUND', `There is no backup file ${path}.`),
  backupDamaged: (reason: string) =>
    new AppError(422, 'BACKUP_DAMAGED', `The backup cannot be used: ${reason}. Nothing was restored; try another backup file.`),
  backupFailed: (reason: string) =>
    new AppError(
      500,
      'BACKUP_FAILED',
      `The backup could not be written as it should: ${reason}. No backup file was left under the name given.`,
    ),
  /** The single executable's private cache folder (its SQLite library) cannot be made: HOME missing, or a home this user may not write in. */
  cacheFolderUnusable: (path: string, reason: string) =>
    new AppError(
      500,
      'CACHE_FOLDER_UNUSABLE',
      `clinic keeps its SQLite library in ${path} and cannot make that folder: ${reason}. Set XDG_CACHE_HOME to a folder this user may write in (or HOME to this user's home folder), then run the command again.`,
    ),
  /** A file the desk would write (`clinic document save`) is there already: never replaced unasked. */
  fileExists: (path: string) => new AppError(409, 'FILE_EXISTS', `${path} already exists; nothing was written.`),
  /** A file the desk was given (`--file`, the archive of `restore`) cannot be opened or read: `reason` says why (named-files.ts). */
  fileUnreadable: (path: string, reason: string) =>
    new AppError(422, 'FILE_UNREADABLE', `${path} cannot be read: ${reason}. Nothing was changed.`),
  /** A file the desk was asked to write (`document save`, `audit export`) cannot be written: `reason` says why (named-files.ts). */
  fileUnwritable: (path: string, reason: string) =>
    new AppError(500, 'FILE_UNWRITABLE', `${path} cannot be written: ${reason}. No file was left under that name.`),
  /** A document's stored bytes differ from the size or SHA-256 recorded at upload: never handed out as the document. */
  documentFileDamaged: () =>
    new AppError(
      500,
      'DOCUMENT_FILE_DAMAGED',
      "The document's stored file does not match the size and SHA-256 recorded at its upload; nothing was saved. `clinic check` lists such files; the backups hold it as uploaded.",
    ),
  /** The folder a backup is to be written into cannot be made or written (a part of it is a file, no permission, read-only). */
  backupFolderUnusable: (path: string, reason: string) =>
    new AppError(
      500,
      'BACKUP_FOLDER_UNUSABLE',
      `No backup can be written into ${path}: ${reason}. Nothing was written; choose another folder, or give the user running clinic write access to this one.`,
    ),
  dataDirectoryNotEmpty: (path: string) =>
    new AppError(409, 'DATA_DIRECTORY_NOT_EMPTY', `${path} is not empty; restore only into an empty or new data directory.`),
  databaseTooNew: (found: number, supported: number) =>
    new AppError(
      409,
      'DATABASE_TOO_NEW',
      `The database has schema version ${found}, newer than this program understands (${supported}); use a newer clinic program.`,
    ),
  schemaUpgradeRequired: (found: number, supported: number, dataDir: string) =>
    new AppError(
      409,
      'SCHEMA_UPGRADE_REQUIRED',
      `The database in ${dataDir} has schema version ${found}, older than this program's (${supported}); nothing was changed. Run clinic upgrade with the same --data: it writes a backup, then brings the database up to date (docs/install.md, "Install a new version").`,
    ),
  autostartNeedsWindows: (command: string) =>
    new AppError(
      400,
      'AUTOSTART_NEEDS_WINDOWS',
      `clinic autostart ${command} sets up a Windows scheduled task; on Linux, run clinic serve under systemd instead (docs/install.md, "Install on a clinic PC").`,
    ),
  autostartSetupFailed: (step: string, output: string) =>
    new AppError(
      500,
      'AUTOSTART_SETUP_FAILED',
      `${step} failed: ${output || 'no reason given'}. Nothing after it was done; run the command again in a terminal opened with "Run as administrator".`,
    ),
  readNotRecorded: (full: boolean) =>
    new AppError(
      507,
      'STORAGE_FAILED',
      `This answer shows patient data, and its audit event could not be stored (${full ? "the clinic computer's disk is full" : 'the disk or the database file failed'}), so nothing is shown. ${full ? "Free space on the data directory's disk, then retry." : 'It has been logged; `clinic check` tells more.'}`,
    ),
  auditChainBroken: (seq: number, reason: string) =>
    new AppError(
      500,
      'AUDIT_CHAIN_BROKEN',
      `The audit trail does not verify from event ${seq} on: ${reason}. Its events were changed, removed or inserted outside this program; the last backup whose trail verifies holds them as recorded.`,
      {},
      { seq },
    ),
  /** Lines of the audit anchor's checkpoints whose signature does not verify (audit-anchor.ts). */
  auditCheckpointInvalid: (folder: string, lines: readonly number[]) =>
    new AppError(
      500,
      'AUDIT_CHECKPOINT_INVALID',
      `The audit trail's checkpoints in ${folder} cannot be trusted: line ${lines.slice(0, 5).join(', ')}${lines.length > 5 ? ` and ${lines.length - 5} more` : ''} of its checkpoints file ${lines.length === 1 ? 'does' : 'do'} not carry the signature of its key (changed, or written without it). Only the server's user and root can write there; find out who did.`,
      {},
      { lines: lines.slice(0, 100) },
    ),
  webhookNotFound: (reference: string) =>
    new AppError(404, 'WEBHOOK_NOT_FOUND', `No webhook endpoint has the id or name "${reference}"; \`clinic webhook list\` shows them.`),
  webhookNameTaken: (name: string) =>
    new AppError(
      409,
      'WEBHOOK_NAME_TAKEN',
      `A webhook endpoint is already named "${name}"; give this one another --name, or remove the other first.`,
    ),
  webhookUrlInsecure: (host: string) =>
    new AppError(
      422,
      'WEBHOOK_URL_INSECURE',
      `The URL sends events to ${host} over plain http://: patient ids and numbers would cross the network unencrypted, to whoever answers for that address. Use https://, or add --allow-insecure-url to accept that.`,
    ),
  // People and roles (interface 1.3.0).
  personNotFound: (reference: string) =>
    new AppError(404, 'PERSON_NOT_FOUND', `No person has the name or id "${reference}"; \`clinic staff list\` shows them.`),
  personNameTaken: (name: string) =>
    new AppError(409, 'PERSON_NAME_TAKEN', `A person is already named "${name}" (names are compared in any case); give another --name.`),
  firstPersonAdmin: () =>
    new AppError(
      422,
      'FIRST_PERSON_ADMIN',
      'The first person must have the role admin, so that someone can add the others: add --role admin.',
    ),
  lastAdmin: (name: string) =>
    new AppError(
      409,
      'LAST_ADMIN',
      `${name} is the last enabled admin: give another person the role admin first, so that someone can still manage the clinic's people.`,
    ),
  pinInvalid: (reason: 'length' | 'not_digits' | 'one_digit' | 'sequence' | 'repeated') =>
    new AppError(
      422,
      'PIN_INVALID',
      {
        length: 'A PIN has 6 to 12 digits.',
        not_digits: 'A PIN has digits only (0-9).',
        one_digit: 'A PIN of one digit repeated (111111) is guessed first; choose another.',
        sequence: 'A PIN of digits counting up or down (123456, 987654) is guessed first; choose another.',
        repeated: 'A PIN that repeats its first two or three digits (121212, 123123) is guessed first; choose another.',
      }[reason],
      {},
      { reason },
    ),
  /**
   * The patient was erased (1.3.0): what is kept of them is restricted (GDPR Art. 18). Only an
   * admin session sees it, and changes nothing of it but a kept invoice's payments and refunds.
   */
  patientRestricted: (patientNumber: string | null, adminMayRead: boolean) =>
    new AppError(
      403,
      'PATIENT_RESTRICTED',
      `${patientNumber ?? 'This patient'} was erased: what must be kept of them is restricted until their retention ends. ` +
        (adminMayRead
          ? 'An admin may read it and take payments or refunds of a kept invoice, nothing more.'
          : 'Only an admin, logged in, may read it.'),
      {},
      patientNumber === null ? {} : { patient_number: patientNumber },
    ),
  roleForbidden: (allowed: readonly string[], roles: readonly string[]) =>
    new AppError(
      403,
      'ROLE_FORBIDDEN',
      `This needs the role ${allowed.join(' or ')}; you have ${roles.length === 0 ? 'none' : roles.join(', ')}. Ask someone who has it, or an admin to give it to you.`,
      {},
      { allowed_roles: [...allowed], roles: [...roles] },
    ),
  loginFailed: (reason: 'unknown_person' | 'wrong_pin' | 'wrong_code', attemptsLeft?: number) =>
    new AppError(
      401,
      'LOGIN_FAILED',
      reason === 'unknown_person'
        ? 'No person has this name; `clinic staff list` (an admin) shows them.'
        : reason === 'wrong_code'
          ? 'This is not the setup code of this person, or it was used or is older than 24 hours; an admin gives a new one with `clinic staff reset-pin NAME`.'
          : `Wrong PIN; ${attemptsLeft} attempt(s) left before the person is locked for 15 minutes.`,
      { 'WWW-Authenticate': 'Bearer' },
      reason === 'wrong_pin' ? { reason, attempts_left: attemptsLeft } : { reason },
    ),
  pinNotSet: () =>
    new AppError(
      401,
      'PIN_NOT_SET',
      'This person has no PIN yet: set one with `clinic staff set-pin --as NAME` and the setup code an admin was given.',
      { 'WWW-Authenticate': 'Bearer' },
    ),
  personDisabled: () =>
    new AppError(401, 'PERSON_DISABLED', 'This person is disabled; an admin can enable them again with `clinic staff enable NAME`.', {
      'WWW-Authenticate': 'Bearer',
    }),
  personLocked: (lockedUntil: string, waitMs: number, until: string) =>
    new AppError(
      423,
      'PERSON_LOCKED',
      `Five wrong PINs in a row: this person is locked until ${until}. An admin can unlock them at once with \`clinic staff enable NAME\`.`,
      { 'Retry-After': String(Math.max(1, Math.ceil(waitMs / 1000))) },
      { locked_until: lockedUntil },
    ),
  sessionEnded: (reason: 'idle' | 'expired' | 'logged_out' | 'replaced' | 'pin_reset' | 'device_revoked') =>
    new AppError(
      401,
      'SESSION_ENDED',
      `${
        {
          idle: 'The session ended after 30 minutes without use',
          expired: 'The session ended 12 hours after its login',
          logged_out: 'The session was logged out',
          replaced: 'Someone else logged in on this PC',
          pin_reset: "The person's PIN was reset",
          device_revoked: 'This desk PC was revoked',
        }[reason]
      }; log in with: clinic login --as NAME`,
      { 'WWW-Authenticate': 'Bearer' },
      { reason },
    ),
  deviceNameTaken: (name: string) =>
    new AppError(
      409,
      'DEVICE_NAME_TAKEN',
      `A desk PC is already named "${name}" (names are compared in any case; a joined or revoked PC keeps its name); give another --name.`,
    ),
  deviceNotFound: (reference: string) =>
    new AppError(404, 'DEVICE_NOT_FOUND', `No desk PC has the name or id "${reference}"; \`clinic desk list\` shows them.`),
  staffRequired: () =>
    new AppError(
      409,
      'STAFF_REQUIRED',
      'A desk PC runs its commands as a person, and the clinic has none yet: add the first with `clinic staff add --name NAME --role admin`.',
    ),
  pairingCodeInvalid: () =>
    new AppError(
      401,
      'PAIRING_CODE_INVALID',
      'This pairing code is wrong, used or expired (a code is valid 10 minutes, once); run `clinic desk pair` on the server PC for a new one.',
      { 'WWW-Authenticate': 'Bearer' },
    ),
  deviceUnknown: () =>
    new AppError(
      401,
      'DEVICE_UNKNOWN',
      'This request needs the Clinic-Device token of a joined desk PC, the one its session was made through; join with `clinic desk join`.',
      { 'WWW-Authenticate': 'Bearer' },
    ),
  deviceRevoked: (name: string) =>
    new AppError(401, 'DEVICE_REVOKED', `The desk PC "${name}" was revoked on the server PC; ask an admin to pair it again.`, {
      'WWW-Authenticate': 'Bearer',
    }),
  sessionRequired: () =>
    new AppError(403, 'SESSION_REQUIRED', "This operation is a person's at a desk PC: it takes a session (Bearer cls_…), not an API key."),
  serverPcOnly: (command: string, serverUrl: string) =>
    new AppError(403, 'SERVER_PC_ONLY', `clinic ${command} runs on the server PC only; this PC is a desk of ${serverUrl}`),
  versionUnsupported: (deskVersion: string, serverVersion: string, accepted: readonly string[]) =>
    new AppError(
      400,
      'VERSION_UNSUPPORTED',
      // A desk is installed at the server's minor or the next (an older one would soon be refused again).
      `this desk runs clinic ${deskVersion} and the server ${serverVersion}; install clinic ${accepted
        .filter((minor) => Number(minor.split('.')[1]) >= Number(serverVersion.split('.')[1]))
        .join(' or ')} here, or update the server`,
      {},
      { desk_version: deskVersion, server_version: serverVersion, accepted },
    ),
  caFingerprintMismatch: (url: string, expected: string) =>
    new AppError(
      401,
      'CA_FINGERPRINT_MISMATCH',
      `${url} did not present a certificate signed by the CA ${expected} that covers its name; nothing was sent. Check the line \`clinic desk pair\` printed.`,
    ),
  serverUntrusted: (url: string) =>
    new AppError(
      401,
      'SERVER_UNTRUSTED',
      `${url} no longer presents a certificate of the CA this desk joined with (was \`clinic tls init --new-ca\` run?); nothing was sent. Pair this PC again.`,
    ),
  serverNotOnNetwork: () =>
    new AppError(
      409,
      'SERVER_NOT_ON_NETWORK',
      'No server of this data directory serves HTTPS beyond this PC; start it with `clinic serve --host 0.0.0.0` after `clinic tls init`, or give --url.',
    ),
  deskAlreadyJoined: (url: string) =>
    new AppError(409, 'DESK_ALREADY_JOINED', `This PC is already a desk of ${url}; \`clinic desk status\` shows it.`),
  deskNotJoined: () =>
    new AppError(
      409,
      'DESK_NOT_JOINED',
      'This PC is not a desk of any server; join one with the line `clinic desk pair` prints on the server PC.',
    ),
  serverUnreachable: (url: string) => new AppError(503, 'SERVER_UNREACHABLE', `${url} did not answer within 3 s; nothing was sent`),
  serverNoAnswer: (url: string, idempotencyKey: string | undefined, sendings = 2) =>
    new AppError(
      504,
      'SERVER_NO_ANSWER',
      `${url} did not answer${sendings === 2 ? ', twice' : ''}${
        idempotencyKey === undefined
          ? sendings === 2
            ? ''
            : '; whether it was done is not known: look before you repeat it'
          : `; whether it was done is not known: repeat the command with --idempotency-key ${idempotencyKey} (done once, it is not done again)`
      }`,
      {},
      idempotencyKey === undefined ? {} : { idempotency_key: idempotencyKey },
    ),
  runOnDeskPc: (command: string) =>
    new AppError(
      400,
      'DESK_PC_COMMAND',
      ['login', 'logout', 'whoami', 'staff set-pin', 'desk join', 'desk status', 'version'].includes(command)
        ? `clinic ${command} runs on the desk PC itself (through its own operation), not as a desk command`
        : `clinic ${command} moves a file between the PCs, which this version does not do for it yet: run it on the server PC`,
    ),
  deskCommandsUnavailable: () =>
    new AppError(503, 'DESK_COMMANDS_UNAVAILABLE', "This server was started without the desk's commands; start it with `clinic serve`."),
  /**
   * A setting something else needs is not set (1.3.0): a reminder rule needs the clinic's name,
   * an erasure the retention preset. `detail.setting` names it.
   */
  settingRequired: (setting: 'name' | 'retention') =>
    new AppError(
      422,
      'SETTING_REQUIRED',
      setting === 'name'
        ? "A reminder says which clinic it comes from: set the clinic's name first, with `clinic settings set-name TEXT`."
        : "What is kept, and how long, follows the law of the clinic's country: set it first, with `clinic settings set-retention --country AT|DE`.",
      {},
      { setting },
    ),
  /** A reminder template with a `{…}` that is no placeholder (1.3.0): `detail.placeholder` is what was written, `detail.template` which one. */
  templateInvalid: (placeholder: string, template: string, known: readonly string[]) =>
    new AppError(
      422,
      'TEMPLATE_INVALID',
      `${TEMPLATE_LABELS[template] ?? template}: ${placeholder} is not a placeholder; use ${known.map((name) => `{${name}}`).join(', ')}, or {{ and }} for braces.`,
      {},
      { placeholder, template },
    ),
  /** A generic SMS gateway's body template that leaves no JSON object once filled (1.3.0). */
  gatewayTemplateInvalid: (reason: string) =>
    new AppError(
      422,
      'TEMPLATE_INVALID',
      `The gateway's body template is ${reason} once {to}, {from}, {text} and {reference} are filled in; it must be a JSON object with the placeholders inside its strings.`,
      {},
      { template: 'body_template' },
    ),
  /** The desk's, where a command needs a person and no one is logged in (interface 1.3.0, "Sessions"). */
  loginRequired: () => new AppError(401, 'LOGIN_REQUIRED', 'this command needs a person; log in with: clinic login --as NAME'),
  checkFailed: (findings: number) => new AppError(500, 'CHECK_FAILED', `clinic check found ${findings} problem(s); each is listed above.`),
  internal: () => new AppError(500, 'INTERNAL', 'An unexpected error occurred; it has been logged.'),
} as const;
