import { EXAMPLE_IDS } from './examples.js';

/**
 * The version of the interface (spec §9), not of the program: it changes when the interface
 * does, whatever the program's own version.
 */
export const INTERFACE_VERSION = '1.3.0';

const DESCRIPTION = `The clinic's public JSON API on this computer: patients, appointments, documents, invoices and payments.

**Keys.** Every operation but the four public ones (document types, payment methods, this description and its docs page)
needs \`Authorization: Bearer <key>\` with the scope the operation names. Keys are issued with \`clinic api-key create\`.

**Roles (1.3.0).** Each operation's \`x-clinic-roles\` lists the roles of the clinic's people (\`admin\`, \`reception\`,
\`practitioner\`, \`billing\`, \`scheduler\`) who may perform it, as a person logged in at the desk performs it; \`[]\` needs no
one. A person lacking them is refused with 403 \`ROLE_FORBIDDEN\` (\`detail.allowed_roles\`, \`detail.roles\`). API keys are
checked by their scopes only. A person at a desk PC sends their session as \`Authorization: Bearer cls_…\` with the PC's
\`Clinic-Device\` (security scheme \`clinicDevice\`); the operations tagged \`desk\` take no API key (403 \`SESSION_REQUIRED\`).

**Errors.** A 422 whose \`detail\` is a list reports every failing value at once (pydantic v2 shape: \`type\`, \`loc\`,
\`msg\`, \`input\`, \`ctx\`). Every other refusal is \`{"detail": {"code", "message"}}\` with a stable code (\`ErrorCode\`);
\`APPOINTMENT_OVERLAP\` adds \`conflicts\`; \`DOCTOR_RETIRED\` and \`SERVICE_RETIRED\` add \`id\`, \`CREDIT_EXCEEDS_BALANCE\` adds \`balance\`
(1.3.0). A request the current state of a record forbids is a 409 (1.2.0); an
\`If-Match\` naming another version than the record's \`ETag\` is a 412 \`PRECONDITION_FAILED\`. Corrections keep the
history: nothing is deleted (a cancelled appointment, a void invoice and a refund stay readable).
A path not in this description is a 404 \`NOT_FOUND\`; a path of it with another method is a 405 \`METHOD_NOT_ALLOWED\`
with an \`Allow\` header (components \`NotFound\` and \`MethodNotAllowed\`), both before any key is checked. Request
headers over 16 KiB in all are a 431 \`HEADERS_TOO_LARGE\` on any path (component \`HeadersTooLarge\`); no header is
ever dropped. A request not in full (headers and body) within 30 s is a 408 \`REQUEST_TIMEOUT\` (\`RequestTimeout\`).
A client address that had 30 answers 401 within 60 s gets 429 \`TOO_MANY_REQUESTS\` on any path, a valid key or not,
until 60 s after the last of them (the PC's own 127.0.0.1 and ::1 never do); a key made with \`--rate-limit N\` gets it
past N requests in a clock minute, until the minute ends. Both carry \`Retry-After\` in seconds (\`TooManyRequests\`).
A write refused because the disk is full is a 507 \`STORAGE_FULL\`; a failing disk or database file is a
500 \`STORAGE_FAILED\`; in both cases nothing was stored and the same request may be sent again.

**Values.** Ids are lowercase UUIDs (read case-insensitively). A date-time without an offset is clinic local time;
responses give UTC with \`Z\`. Money is a JSON number in responses; requests may send it as a number or a decimal string.
Unknown body fields are ignored. Every response carries \`X-Request-Id\`, and every answer of an operation that takes a key,
its refusals included, \`Cache-Control: no-store\` (patient data stays in no cache).

**Examples.** Each operation shows its request as a curl command that works when pasted into a shell in which
\`API\` is this server's base URL (\`API=http://127.0.0.1:8080/api/public/v1\`) and \`KEY\` an API key
(\`KEY=clinic_…\`). The records an example names are shell variables, each to be set to an id of your own:
${EXAMPLE_IDS.map(({ variable, what }) => `\`${variable}\` ${what}`).join('; ')}. The upload sends \`scan.pdf\` from the
current folder; the download saves \`scan-copy.pdf\` there. A desk PC's requests (1.3.0) also send \`DEVICE\`, its token
from POST /desk/join (\`cld_…\`), and \`SESSION\`, a person's token from POST /sessions (\`cls_…\`); the join's code and the
login's name and PIN are the clinic's own.`;

/** The `info` object of the interface description. */
export const VERSION_INFO = {
  title: 'Clinic public API',
  version: INTERFACE_VERSION,
  description: DESCRIPTION,
} as const;
