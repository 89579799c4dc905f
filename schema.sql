-- The schema of record: applied as a whole to a new, empty database, which is then marked with
-- PRAGMA user_version = SCHEMA_VERSION (src/db/migrations.ts). An existing database is brought
-- forward by the numbered migrations in that file instead; every change here needs one there too.
--
-- Conventions: ids are lowercase UUID v4 text; timestamps are UTC ISO 8601 text with milliseconds
-- and 'Z' (they sort as text); money is integer cents; booleans are 0/1 integers. STRICT tables
-- make SQLite refuse a value of the wrong type instead of silently storing it.

-- Clinic settings (modules, timezone, currency, ...). Absent key = built-in default.
CREATE TABLE settings (
  key   TEXT PRIMARY KEY,
  value TEXT NOT NULL
) STRICT;

-- Only the SHA-256 of a key is stored; the key itself is shown once, at creation.
CREATE TABLE api_keys (
  id         TEXT PRIMARY KEY,
  name       TEXT NOT NULL,
  key_hash   TEXT NOT NULL UNIQUE,
  scopes     TEXT NOT NULL,          -- space-separated scope names, or '*': every scope, later ones too
  created_at TEXT NOT NULL,
  revoked_at TEXT,
  -- Requests the key may make per clock minute (api-key create --rate-limit); NULL: no limit.
  rate_limit_per_minute INTEGER CHECK (rate_limit_per_minute BETWEEN 1 AND 1000000)
) STRICT;

-- Doctors and services are corrected in place (1.3.0: `doctor edit`, `service edit`): an
-- appointment refers to the row, so it shows the new name, and a new price applies to what is
-- booked or invoiced afterwards (no invoice copies a price). A doctor who left, a service no
-- longer offered, is retired, never deleted: `retired_at` is set, and every appointment that
-- names it keeps it. The lists read these few rows in seq order, the order they were added.
CREATE TABLE doctors (
  seq        INTEGER PRIMARY KEY AUTOINCREMENT,  -- stable listing order
  id         TEXT NOT NULL UNIQUE,
  name       TEXT NOT NULL,
  color      TEXT NOT NULL,
  created_at TEXT NOT NULL,
  retired_at TEXT                                -- null while the doctor can be booked
) STRICT;

CREATE TABLE services (
  seq          INTEGER PRIMARY KEY AUTOINCREMENT,
  id           TEXT NOT NULL UNIQUE,
  name         TEXT NOT NULL,
  duration_min INTEGER NOT NULL CHECK (duration_min > 0),
  price_cents  INTEGER NOT NULL CHECK (price_cents >= 0),
  color        TEXT NOT NULL,
  created_at   TEXT NOT NULL,
  retired_at   TEXT                              -- null while the service can be booked
) STRICT;

-- One column per field of the Patient (spec 2.1/2.2), named as the API names it; the list must
-- match src/domain/patients/patient-fields.ts (a test checks). AUTOINCREMENT makes `seq`, and so
-- `patient_number`, never reused even after the newest row is gone.
CREATE TABLE patients (
  seq                            INTEGER PRIMARY KEY AUTOINCREMENT,
  id                             TEXT NOT NULL UNIQUE,
  patient_number                 TEXT NOT NULL GENERATED ALWAYS AS (printf('P-%06d', seq)) VIRTUAL,
  is_active                      INTEGER NOT NULL DEFAULT 1,
  created_at                     TEXT NOT NULL,
  updated_at                     TEXT NOT NULL,
  first_name                     TEXT NOT NULL,
  last_name                      TEXT NOT NULL,
  salutation                     TEXT,
  title                          TEXT,
  gender                         TEXT,
  date_of_birth                  TEXT,
  avatar                         TEXT,
  email                          TEXT,
  mobile                         TEXT,
  phone                          TEXT,
  fax                            TEXT,
  address_street                 TEXT,
  address_zip                    TEXT,
  address_city                   TEXT,
  address_state                  TEXT,
  address_country                TEXT,
  insurance_type                 TEXT,
  insurer_name                   TEXT,
  insurance_number               TEXT,
  supplemental_insurance         TEXT,
  insurer_id                     TEXT,
  billing_recipient              TEXT,
  reference_number               TEXT,
  tin                            TEXT,
  recall_date                    TEXT,
  recall_type                    TEXT,
  classification                 TEXT,
  cave                           TEXT,
  notes                          TEXT,
  gdpr_consent                   INTEGER NOT NULL,
  gdpr_consent_date              TEXT,
  insured_status                 TEXT,
  billing_tariff                 TEXT,
  insurance_category             TEXT,
  insurance_country              TEXT,
  insurance_note                 TEXT,
  prescription_fee_exempt        INTEGER NOT NULL,
  is_doctor_relative             INTEGER NOT NULL,
  has_disability                 INTEGER NOT NULL,
  has_supplemental_insurance     INTEGER NOT NULL,
  supplemental_insurance_label   TEXT,
  supplemental_insurance_copies  INTEGER,
  recall_manual_month            INTEGER,
  recall_manual_year             INTEGER,
  recall_contact_count           INTEGER NOT NULL,
  recall_last_contact_at         TEXT,
  recall_hygiene_interval_months INTEGER,
  recall_checkup_interval_months INTEGER,
  recall_blocked                 INTEGER NOT NULL,
  visit_address_street           TEXT,
  visit_address_zip              TEXT,
  visit_address_city             TEXT,
  visit_address_country          TEXT,
  visit_address_same_as_main     INTEGER NOT NULL,
  occupation                     TEXT,
  employer_name                  TEXT,
  employer_street                TEXT,
  employer_zip                   TEXT,
  employer_city                  TEXT,
  employer_country               TEXT,
  employer_phone                 TEXT,
  referrer_name                  TEXT,
  referral_reason                TEXT,
  gp_name                        TEXT,
  referral_date                  TEXT,
  discount_percent               TEXT NOT NULL,   -- canonical decimal string, kept exact
  dunning_blocked                INTEGER NOT NULL,
  bank_name                      TEXT,
  bank_bic                       TEXT,
  bank_iban                      TEXT,
  last_anamnesis_date            TEXT,
  mandant_user_id                TEXT,
  newsletter_opt_in              INTEGER NOT NULL,
  suppress_payment_slip          INTEGER NOT NULL,
  appointments_blocked           INTEGER NOT NULL,
  consent_presentations          INTEGER NOT NULL,
  contact_consent                INTEGER NOT NULL,
  communication_prefs            TEXT,            -- JSON object of string arrays
  portal_access                  TEXT NOT NULL,   -- JSON object of eight booleans
  insurer_code                   TEXT,
  last_panoramic_date            TEXT,
  -- 1 at creation, +1 for each change (PATCH, clinic-api-1.2.md): the ETag of If-Match.
  version                        INTEGER NOT NULL DEFAULT 1,
  -- 1.3.0: the patient asked for no reminders; a reminder due is skipped (opted_out).
  reminders_opt_out              INTEGER NOT NULL DEFAULT 0 CHECK (reminders_opt_out IN (0, 1)),
  -- 1.3.0: when the patient was erased (GDPR Art. 17); restricted (Art. 18) until the last purge.
  erased_at                      TEXT
) STRICT;

-- Patient search (GET /patients?q, `clinic patient find`): the words a patient is found by, folded
-- (src/db/search-terms.ts) and tagged by kind: `n:` a word of the first or last name (and a
-- hyphenated name whole), `d:` the date of birth, `e:` the email. Every kind is then a range or
-- an equality on the primary key. Written in the transaction that inserts the patient.
CREATE TABLE patient_search_terms (
  term        TEXT NOT NULL,
  last_name   TEXT NOT NULL,  -- the patient's name, so that matches are put in order without reading
  first_name  TEXT NOT NULL,  -- their (wide) patients rows; rewrite a patient's terms if it changes
  patient_seq INTEGER NOT NULL REFERENCES patients (seq),
  PRIMARY KEY (term, last_name, first_name, patient_seq)
) STRICT, WITHOUT ROWID;
-- Does this patient also match the query's other words? One short range per patient.
CREATE INDEX patient_search_terms_by_patient ON patient_search_terms (patient_seq, term);

-- The digits of a patient's phone and mobile (`436641234567 012345678`): a query's run of 4 or
-- more digits may sit anywhere in them, which no index serves short of one row per suffix (about
-- 20 more index pages written per new patient: creating a patient took 3 times as long). So a
-- phone search reads this narrow table whole (about 10 ms at 100,000 patients), and only when
-- no other word of the query narrows it first.
CREATE TABLE patient_phone_digits (
  patient_seq INTEGER PRIMARY KEY REFERENCES patients (seq),
  digits      TEXT NOT NULL
) STRICT;
-- GET /patients lists by name: last_name, first_name, then patient_number (seq).
CREATE INDEX patients_by_name ON patients (last_name, first_name);

-- Appointments (spec 2.4/2.5). `seq` AUTOINCREMENT makes `appointment_number` never reused, as
-- for patients. The confirmation timestamps are the source of `confirmation_state`, which is
-- derived when presented (src/domain/appointments/confirmation-state.ts), never stored.
-- `end_at` after `start_at` is checked by the domain on the instants; no CHECK here, because a
-- text comparison of ISO strings goes wrong for years that toISOString writes with six digits.
CREATE TABLE appointments (
  seq                           INTEGER PRIMARY KEY AUTOINCREMENT,
  id                            TEXT NOT NULL UNIQUE,
  appointment_number            TEXT NOT NULL GENERATED ALWAYS AS (printf('A-%06d', seq)) VIRTUAL,
  booking_source                TEXT NOT NULL,   -- api, cli; legacy rows: online, portal, ...
  created_at                    TEXT NOT NULL,
  updated_at                    TEXT NOT NULL,
  start_at                      TEXT NOT NULL,
  end_at                        TEXT NOT NULL,
  patient_id                    TEXT REFERENCES patients (id),
  resource_id                   TEXT REFERENCES doctors (id),
  service_id                    TEXT REFERENCES services (id),
  title                         TEXT,
  status                        TEXT NOT NULL,
  appointment_type              TEXT,
  color                         TEXT,
  notes                         TEXT,
  clinic_confirmed_at           TEXT,
  patient_confirmed_at          TEXT,
  reschedule_from_start_at      TEXT,
  reschedule_from_end_at        TEXT,
  reschedule_at                 TEXT,
  reschedule_by_role            TEXT,
  confirmation_reminder_sent_at TEXT,
  status_reason                 TEXT,
  status_changed_at             TEXT,  -- when the status last changed (1.2.0); null while it never did
  patient_declined_at           TEXT   -- 1.3.0: the patient said they will not come; patient_confirmed_at is then null
) STRICT;

-- A patient's appointments in time order: the lookup behind the foreign key and any patient calendar.
CREATE INDEX appointments_by_patient ON appointments (patient_id, start_at);
-- The day sheet (GET /appointments): the clinic's, or one doctor's, appointments in time order.
-- Each index ends with the rowid (seq), the tie-break of that order, so a page is a range scan.
CREATE INDEX appointments_by_start ON appointments (start_at);
CREATE INDEX appointments_by_doctor ON appointments (resource_id, start_at);

-- The longest appointment ever booked, in milliseconds (one row). An appointment overlaps a
-- window when it starts before the window ends and ends after it begins; with this bound the
-- second condition becomes a range on start_at too (start_at > from - longest), so a day sheet
-- reads that day's index entries instead of every appointment before it.
CREATE TABLE appointment_extent (
  id         INTEGER PRIMARY KEY CHECK (id = 1),
  longest_ms INTEGER NOT NULL CHECK (longest_ms >= 0)
) STRICT;
INSERT INTO appointment_extent (id, longest_ms) VALUES (1, 0);

-- The services of an appointment (`service_ids`), in the order the request gave them.
CREATE TABLE appointment_services (
  appointment_id TEXT NOT NULL REFERENCES appointments (id),
  position       INTEGER NOT NULL CHECK (position >= 0),
  service_id     TEXT NOT NULL REFERENCES services (id),
  PRIMARY KEY (appointment_id, position)
) STRICT, WITHOUT ROWID;

-- Uploaded documents: the metadata only. The bytes are the file documents/<patient_id>/<id> in
-- the data directory, put there only after this row is committed (decisions.md §6). `seq`
-- AUTOINCREMENT makes `document_number` (D-000017, interface 1.3.0) never reused, as for patients:
-- not even after an upload whose file could not be put in place removed its row.
CREATE TABLE documents (
  seq             INTEGER PRIMARY KEY AUTOINCREMENT,
  id              TEXT NOT NULL UNIQUE,
  document_number TEXT NOT NULL GENERATED ALWAYS AS (printf('D-%06d', seq)) VIRTUAL,
  patient_id      TEXT NOT NULL REFERENCES patients (id),
  filename        TEXT NOT NULL,       -- the client's base name, for people; never a path on disk
  content_type    TEXT NOT NULL,
  size            INTEGER NOT NULL CHECK (size > 0),
  sha256          TEXT NOT NULL,       -- lowercase hex of the stored bytes
  title           TEXT,
  type            TEXT NOT NULL,
  created_at      TEXT NOT NULL
) STRICT;

-- A patient's documents, newest last: the lookup behind the foreign key and any document list
-- (read backwards, newest first, with the rowid as the tie-break).
CREATE INDEX documents_by_patient ON documents (patient_id, created_at);
-- Billing (decisions.md §7). Invoice numbers count per year of issue; the counter row is bumped
-- in the transaction that inserts the invoice, so a number is never handed out twice and never
-- reused, even if that invoice were ever removed.
CREATE TABLE invoice_counters (
  year        INTEGER PRIMARY KEY,
  last_number INTEGER NOT NULL CHECK (last_number > 0)
) STRICT;

-- Money is integer cents. The CHECKs are the last line of defence for the payment rules: a
-- balance can never go below zero, paid + balance + credited always equals the total, and the
-- status always agrees with the amounts, whatever code writes the row. A void invoice (1.2.0)
-- owes nothing and has nothing paid, and says when and why it was voided. Credit notes (1.3.0)
-- lower what an invoice asks: `amount_credited_cents` is their sum, never the whole total (an
-- invoice that asks nothing is voided instead). Since `paid` means a balance of 0 and `issued`
-- nothing paid, no invoice but a void one can owe nothing with nothing paid either.
CREATE TABLE invoices (
  seq               INTEGER PRIMARY KEY AUTOINCREMENT,  -- creation order: the listing tie-break
  id                TEXT NOT NULL UNIQUE,
  invoice_number    TEXT NOT NULL UNIQUE,
  patient_id        TEXT NOT NULL REFERENCES patients (id),
  status            TEXT NOT NULL CHECK (status IN ('issued', 'partially_paid', 'paid', 'void')),
  currency          TEXT NOT NULL,
  total_cents       INTEGER NOT NULL CHECK (total_cents > 0),
  amount_paid_cents INTEGER NOT NULL CHECK (amount_paid_cents >= 0),
  balance_cents     INTEGER NOT NULL CHECK (balance_cents >= 0),
  issued_at         TEXT NOT NULL,
  created_at        TEXT NOT NULL,
  updated_at        TEXT NOT NULL,
  voided_at         TEXT,
  void_reason       TEXT,
  amount_credited_cents INTEGER NOT NULL DEFAULT 0 CHECK (amount_credited_cents >= 0),
  CHECK (amount_credited_cents < total_cents),
  CHECK ((status = 'void') = (voided_at IS NOT NULL AND void_reason IS NOT NULL)),
  CHECK (status <> 'void' OR (amount_paid_cents = 0 AND balance_cents = 0)),
  CHECK (status = 'void' OR amount_paid_cents + balance_cents + amount_credited_cents = total_cents),
  CHECK (status = 'void' OR (status = 'paid') = (balance_cents = 0)),
  CHECK (status = 'void' OR (status = 'issued') = (amount_paid_cents = 0))
) STRICT;

-- GET /invoices lists newest first: ORDER BY issued_at DESC, seq DESC. Every index ends with the
-- rowid (seq), so each of these serves that order by walking backwards, with no sort step:
-- one patient's invoices from a million in a few index pages; all invoices; and the open ones
-- (balance above zero), which stay few however many paid invoices accumulate.
CREATE INDEX invoices_by_patient ON invoices (patient_id, issued_at);
CREATE INDEX invoices_by_issued_at ON invoices (issued_at);
CREATE INDEX invoices_open_by_issued_at ON invoices (issued_at) WHERE balance_cents > 0;
-- What a patient owes, and what a search page's patients owe, summed in this index alone: the
-- open invoices by patient and currency, with their issue date and balance (no invoice row read).
CREATE INDEX invoices_open_by_patient ON invoices (patient_id, currency, issued_at, balance_cents) WHERE balance_cents > 0;

-- A payment is final (spec §1): the triggers below refuse any UPDATE or DELETE. Each row keeps
-- the invoice's state right after it, so an Idempotency-Key replay returns the original result.
-- The UNIQUE key is what makes a retry safe across processes; NULL (no key) may repeat.
CREATE TABLE payments (
  seq                       INTEGER PRIMARY KEY AUTOINCREMENT,
  id                        TEXT NOT NULL UNIQUE,
  invoice_id                TEXT NOT NULL REFERENCES invoices (id),
  amount_cents              INTEGER NOT NULL CHECK (amount_cents > 0),
  method                    TEXT NOT NULL CHECK (method IN ('cash', 'card', 'bank', 'other')),
  note                      TEXT,
  idempotency_key           TEXT UNIQUE,
  request_fingerprint       TEXT NOT NULL,  -- SHA-256 of (invoice, amount in cents, method, note)
  invoice_status            TEXT NOT NULL,
  invoice_amount_paid_cents INTEGER NOT NULL,
  invoice_balance_cents     INTEGER NOT NULL,
  created_at                TEXT NOT NULL
) STRICT;

CREATE INDEX payments_by_invoice ON payments (invoice_id);
-- The end-of-day cash count (`clinic report day`): one clinic day's payments are a range of created_at.
CREATE INDEX payments_by_created_at ON payments (created_at);

CREATE TRIGGER payments_are_final_on_update BEFORE UPDATE ON payments
BEGIN
  SELECT RAISE(ABORT, 'payments are final: a recorded payment cannot be changed');
END;

-- Only the purge of an erased patient's invoice after its retention (1.3.0) deletes one.
CREATE TRIGGER payments_are_final_on_delete BEFORE DELETE ON payments
WHEN NOT EXISTS (SELECT 1 FROM invoices i JOIN patients p ON p.id = i.patient_id WHERE i.id = OLD.invoice_id AND p.erased_at IS NOT NULL)
BEGIN
  SELECT RAISE(ABORT, 'payments are final: a recorded payment cannot be deleted');
END;

-- A refund (1.2.0) gives back part or all of one payment. Like a payment it is final (the
-- triggers below) and keeps the invoice's state right after it, for an Idempotency-Key replay;
-- its key shares one space with the payments' (checked in the refund's and the payment's
-- transaction, src/domain/payments). What a payment can still give back is its amount minus the
-- sum of its refunds.
CREATE TABLE refunds (
  seq                       INTEGER PRIMARY KEY AUTOINCREMENT,
  id                        TEXT NOT NULL UNIQUE,
  payment_id                TEXT NOT NULL REFERENCES payments (id),
  invoice_id                TEXT NOT NULL REFERENCES invoices (id),
  amount_cents              INTEGER NOT NULL CHECK (amount_cents > 0),
  method                    TEXT NOT NULL CHECK (method IN ('cash', 'card', 'bank', 'other')),
  reason                    TEXT NOT NULL,
  idempotency_key           TEXT UNIQUE,
  request_fingerprint       TEXT NOT NULL,  -- SHA-256 of (payment, amount in cents or none, method, reason)
  invoice_status            TEXT NOT NULL,
  invoice_amount_paid_cents INTEGER NOT NULL,
  invoice_balance_cents     INTEGER NOT NULL,
  payment_refunded_cents    INTEGER NOT NULL,  -- all refunded of the payment once this one is: what is left is its amount less this
  created_at                TEXT NOT NULL
) STRICT;

CREATE INDEX refunds_by_payment ON refunds (payment_id);
CREATE INDEX refunds_by_invoice ON refunds (invoice_id);
-- The day's refunds in `clinic report day`.
CREATE INDEX refunds_by_created_at ON refunds (created_at);

CREATE TRIGGER refunds_are_final_on_update BEFORE UPDATE ON refunds
BEGIN
  SELECT RAISE(ABORT, 'refunds are final: a recorded refund cannot be changed');
END;

-- Only the purge of an erased patient's invoice after its retention (1.3.0) deletes one.
CREATE TRIGGER refunds_are_final_on_delete BEFORE DELETE ON refunds
WHEN NOT EXISTS (SELECT 1 FROM invoices i JOIN patients p ON p.id = i.patient_id WHERE i.id = OLD.invoice_id AND p.erased_at IS NOT NULL)
BEGIN
  SELECT RAISE(ABORT, 'refunds are final: a recorded refund cannot be deleted');
END;

-- A credit note (1.3.0) lowers what an invoice asks: an invoice that asked too much, or goodwill.
-- Money moves only with payments and refunds; a goodwill refund (refund_id) is a refund and a
-- credit note of the same amount, in one transaction. Numbered CN-<year>-NNNNNN, a series per
-- calendar year in clinic time (credit_note_counters, as invoice_counters), final as payments are.
CREATE TABLE credit_notes (
  seq                INTEGER PRIMARY KEY AUTOINCREMENT,
  id                 TEXT NOT NULL UNIQUE,
  credit_note_number TEXT NOT NULL UNIQUE,
  invoice_id         TEXT NOT NULL REFERENCES invoices (id),
  amount_cents       INTEGER NOT NULL CHECK (amount_cents > 0),
  reason             TEXT NOT NULL,
  refund_id          TEXT UNIQUE REFERENCES refunds (id),  -- the goodwill refund it came with, or null
  created_at         TEXT NOT NULL
) STRICT;

-- An invoice's credit notes (GET /invoices/{id}), and a clinic day's (`clinic report day`).
CREATE INDEX credit_notes_by_invoice ON credit_notes (invoice_id);
CREATE INDEX credit_notes_by_created_at ON credit_notes (created_at);

CREATE TRIGGER credit_notes_are_final_on_update BEFORE UPDATE ON credit_notes
BEGIN
  SELECT RAISE(ABORT, 'credit notes are final: a credit note cannot be changed');
END;

-- Only the purge of an erased patient's invoice after its retention (1.3.0) deletes one.
CREATE TRIGGER credit_notes_are_final_on_delete BEFORE DELETE ON credit_notes
WHEN NOT EXISTS (SELECT 1 FROM invoices i JOIN patients p ON p.id = i.patient_id WHERE i.id = OLD.invoice_id AND p.erased_at IS NOT NULL)
BEGIN
  SELECT RAISE(ABORT, 'credit notes are final: a credit note cannot be deleted');
END;

CREATE TABLE credit_note_counters (
  year        INTEGER PRIMARY KEY,
  last_number INTEGER NOT NULL CHECK (last_number > 0)
) STRICT;

-- The first answer of a POST sent with an Idempotency-Key (1.3.0, "Versions, failures,
-- retries"), replayed to the same request sent again with that key until `expires_at` (24 h).
-- Payments and refunds keep their keys in their own rows, forever; the three share one key
-- space, which the program checks in the request's IMMEDIATE transaction. `fingerprint` is
-- the SHA-256 of what makes two requests the same: the operation, the ids of its path and its
-- body's values as read. A refused request stores nothing, so its key stays free.
CREATE TABLE idempotent_answers (
  idempotency_key TEXT PRIMARY KEY,
  operation       TEXT NOT NULL,  -- the operation's id, e.g. createCreditNote
  fingerprint     TEXT NOT NULL,
  status          INTEGER NOT NULL CHECK (status BETWEEN 200 AND 299),
  body            TEXT NOT NULL,  -- the answer's JSON, as first sent
  created_at      TEXT NOT NULL,
  expires_at      TEXT NOT NULL
) STRICT;
-- Answers whose 24 h are over are removed as new ones are stored: a range of this index.
CREATE INDEX idempotent_answers_by_expiry ON idempotent_answers (expires_at);

-- The outbox of patient notifications ("the patient is notified", spec 3). A row is written in
-- the payment's own transaction, so a paid invoice always has its notification; delivery
-- happens later and apart, so it can never undo or delay a payment. `recipient` is NULL only
-- for a patient with neither email nor mobile, whose row is failed at once.
CREATE TABLE notification_outbox (
  seq             INTEGER PRIMARY KEY AUTOINCREMENT,
  id              TEXT NOT NULL UNIQUE,
  patient_id      TEXT NOT NULL REFERENCES patients (id),
  invoice_id      TEXT NOT NULL REFERENCES invoices (id),
  channel         TEXT NOT NULL CHECK (channel IN ('email', 'sms')),
  recipient       TEXT,
  status          TEXT NOT NULL CHECK (status IN ('pending', 'sent', 'failed')),
  attempts        INTEGER NOT NULL DEFAULT 0 CHECK (attempts >= 0),
  next_attempt_at TEXT NOT NULL,
  last_error      TEXT,
  created_at      TEXT NOT NULL,
  sent_at         TEXT,
  CHECK (recipient IS NOT NULL OR status = 'failed')
) STRICT;

-- The delivery worker's question, "which pending rows of this channel are due?", from a partial
-- index that holds pending rows only; `clinic notifications list --status` uses the other.
CREATE INDEX notification_outbox_due ON notification_outbox (channel, next_attempt_at) WHERE status = 'pending';
CREATE INDEX notification_outbox_by_status ON notification_outbox (status);

-- The audit trail (clinic-api-1.2.md, "Audit trail"): one event per patient whose data an answer
-- showed or changed, hash-chained, append-only. Stored compactly (schema 7, issue 39): what many
-- events share is a row of its own that they refer to: the action, the patient, and the
-- request's context (who, from where, its request id and detail: a search page's 50 events share
-- one, with its `q`); an event keeps its time, references and hash (src/db/audit-codec.ts says
-- how each field is stored and reads back). The view audit_events below shows the events as
-- interface 1.2.0 does, so each hash covers the same text. No row of any of these tables is ever
-- changed or deleted (the triggers refuse it): interface 1.3.0 deletes an erased patient's row
-- from `patients`, while audit_patients keeps naming it.
CREATE TABLE audit_actions (
  code         INTEGER PRIMARY KEY,
  action       TEXT NOT NULL,
  subject_type TEXT NOT NULL,
  UNIQUE (action, subject_type)
) STRICT;
CREATE TABLE audit_patients (
  ref            INTEGER PRIMARY KEY,
  patient_id     TEXT,
  patient_number TEXT,
  -- Found by both (an event names the number it was given); "who has seen this patient?" by the id.
  UNIQUE (patient_id, patient_number)
) STRICT;
CREATE TABLE audit_actors (
  ref        INTEGER PRIMARY KEY,
  actor_type TEXT NOT NULL,
  actor_id   TEXT NOT NULL,
  actor_name TEXT NOT NULL,
  source     TEXT NOT NULL,
  UNIQUE (actor_id, actor_type, actor_name, source)
) STRICT;
CREATE TABLE audit_contexts (
  ref        INTEGER PRIMARY KEY,
  actor_ref  INTEGER NOT NULL REFERENCES audit_actors (ref),
  request_id TEXT,
  -- JSON as hashed (canonical: keys sorted), or NULL.
  detail     TEXT
) STRICT;
-- `seq` is given by the program (the last + 1, in the transaction that also writes what it
-- records), so it has no gaps. `at` is milliseconds since 1970; `subject_id` NULL (none), 0 (the
-- patient's own id) or a UUID's 16 bytes; `hash` 32 bytes; `prev_hash` NULL: the hash of the
-- event before (64 zeros for the first). A value of another form (text) is one the program did
-- not write, kept as it was by migration 7.
CREATE TABLE audit_trail (
  seq         INTEGER PRIMARY KEY CHECK (seq >= 1),
  at          ANY NOT NULL,
  action_code INTEGER NOT NULL REFERENCES audit_actions (code),
  patient_ref INTEGER REFERENCES audit_patients (ref),
  subject_id  ANY,
  context_ref INTEGER NOT NULL REFERENCES audit_contexts (ref),
  hash        ANY NOT NULL,
  prev_hash   ANY
) STRICT;
-- "Who has seen this patient?" (GET /audit-events?patient_id, clinic audit list --patient) and
-- the actions asked for (?action): each a range of one index, in seq order. A window of time
-- (from/to) is a range of seq: the trail's times rise with seq except where the clock was set
-- back, and audit_clock_steps lists those events, so each rising stretch is searched by seq alone.
CREATE INDEX audit_trail_by_patient ON audit_trail (patient_ref, seq);
CREATE INDEX audit_trail_by_action ON audit_trail (action_code, seq);
CREATE TABLE audit_clock_steps (
  seq INTEGER PRIMARY KEY
) STRICT;
CREATE TRIGGER audit_trail_append_only_on_update BEFORE UPDATE ON audit_trail
BEGIN
  SELECT RAISE(ABORT, 'the audit trail is append-only: an event cannot be changed');
END;
CREATE TRIGGER audit_trail_append_only_on_delete BEFORE DELETE ON audit_trail
BEGIN
  SELECT RAISE(ABORT, 'the audit trail is append-only: an event cannot be deleted');
END;
CREATE TRIGGER audit_actions_append_only_on_update BEFORE UPDATE ON audit_actions
BEGIN
  SELECT RAISE(ABORT, 'the audit trail is append-only: its actions cannot be changed');
END;
CREATE TRIGGER audit_actions_append_only_on_delete BEFORE DELETE ON audit_actions
BEGIN
  SELECT RAISE(ABORT, 'the audit trail is append-only: its actions cannot be deleted');
END;
CREATE TRIGGER audit_patients_append_only_on_update BEFORE UPDATE ON audit_patients
BEGIN
  SELECT RAISE(ABORT, 'the audit trail is append-only: the patients it names cannot be changed');
END;
CREATE TRIGGER audit_patients_append_only_on_delete BEFORE DELETE ON audit_patients
BEGIN
  SELECT RAISE(ABORT, 'the audit trail is append-only: the patients it names cannot be deleted');
END;
CREATE TRIGGER audit_actors_append_only_on_update BEFORE UPDATE ON audit_actors
BEGIN
  SELECT RAISE(ABORT, 'the audit trail is append-only: its actors cannot be changed');
END;
CREATE TRIGGER audit_actors_append_only_on_delete BEFORE DELETE ON audit_actors
BEGIN
  SELECT RAISE(ABORT, 'the audit trail is append-only: its actors cannot be deleted');
END;
CREATE TRIGGER audit_contexts_append_only_on_update BEFORE UPDATE ON audit_contexts
BEGIN
  SELECT RAISE(ABORT, 'the audit trail is append-only: its contexts cannot be changed');
END;
CREATE TRIGGER audit_contexts_append_only_on_delete BEFORE DELETE ON audit_contexts
BEGIN
  SELECT RAISE(ABORT, 'the audit trail is append-only: its contexts cannot be deleted');
END;
CREATE TRIGGER audit_clock_steps_append_only_on_update BEFORE UPDATE ON audit_clock_steps
BEGIN
  SELECT RAISE(ABORT, 'the audit trail is append-only: its clock steps cannot be changed');
END;
CREATE TRIGGER audit_clock_steps_append_only_on_delete BEFORE DELETE ON audit_clock_steps
BEGIN
  SELECT RAISE(ABORT, 'the audit trail is append-only: its clock steps cannot be deleted');
END;
-- The events as interface 1.2.0 shows them (GET /audit-events), for anyone reading the file with
-- SQL; the program decodes the same way (src/db/audit-codec.ts). Changing an event through it is
-- refused as changing the trail is.
CREATE VIEW audit_events AS
SELECT t.seq AS seq,
       CASE typeof(t.at) WHEN 'integer'
         THEN strftime('%Y-%m-%dT%H:%M:%S', t.at / 1000, 'unixepoch') || printf('.%03dZ', t.at % 1000) ELSE t.at END AS at,
       a.action AS action,
       p.patient_id AS patient_id,
       p.patient_number AS patient_number,
       a.subject_type AS subject_type,
       CASE typeof(t.subject_id)
         WHEN 'integer' THEN p.patient_id
         WHEN 'blob' THEN lower(substr(hex(t.subject_id), 1, 8) || '-' || substr(hex(t.subject_id), 9, 4) || '-' ||
                                substr(hex(t.subject_id), 13, 4) || '-' || substr(hex(t.subject_id), 17, 4) || '-' ||
                                substr(hex(t.subject_id), 21, 12))
         ELSE t.subject_id END AS subject_id,
       r.actor_type AS actor_type,
       r.actor_id AS actor_id,
       r.actor_name AS actor_name,
       r.source AS source,
       c.request_id AS request_id,
       c.detail AS detail,
       coalesce(CASE typeof(t.prev_hash) WHEN 'blob' THEN lower(hex(t.prev_hash)) ELSE t.prev_hash END,
                (SELECT CASE typeof(h.hash) WHEN 'blob' THEN lower(hex(h.hash)) ELSE h.hash END
                   FROM audit_trail h WHERE h.seq < t.seq ORDER BY h.seq DESC LIMIT 1),
                '0000000000000000000000000000000000000000000000000000000000000000') AS prev_hash,
       CASE typeof(t.hash) WHEN 'blob' THEN lower(hex(t.hash)) ELSE t.hash END AS hash
  FROM audit_trail t
  JOIN audit_actions a ON a.code = t.action_code
  LEFT JOIN audit_patients p ON p.ref = t.patient_ref
  JOIN audit_contexts c ON c.ref = t.context_ref
  JOIN audit_actors r ON r.ref = c.actor_ref;
CREATE TRIGGER audit_events_are_append_only_on_update INSTEAD OF UPDATE ON audit_events
BEGIN
  SELECT RAISE(ABORT, 'the audit trail is append-only: an event cannot be changed');
END;
CREATE TRIGGER audit_events_are_append_only_on_delete INSTEAD OF DELETE ON audit_events
BEGIN
  SELECT RAISE(ABORT, 'the audit trail is append-only: an event cannot be deleted');
END;

-- The change feed (clinic-api-1.2.md, "Change feed"): one row per committed change, appended in
-- the change's own transaction (a transactional outbox), so there is never an event for a change
-- rolled back nor a change without its event. seq is the largest + 1 (under the write lock the
-- change already holds), so it follows commit order without gaps; the triggers below refuse any
-- change or removal, which keeps it so. After a restore it is the largest + 1 of the feed's events
-- and of the ranges the restore marked lost (change_feed_lost_ranges).
CREATE TABLE change_events (
  seq         INTEGER PRIMARY KEY CHECK (seq >= 1),
  type        TEXT NOT NULL,
  occurred_at TEXT NOT NULL,
  patient_id  TEXT,
  -- The event's thin data as JSON: ids and what an integration needs to decide to read more.
  data        TEXT NOT NULL
) STRICT;
-- GET /events?types and a webhook of some types: each type's events in seq order, a range each.
CREATE INDEX change_events_by_type ON change_events (type, seq);
-- The patient's copy and erasure (1.3.0): one patient's events.
CREATE INDEX change_events_by_patient ON change_events (patient_id, seq) WHERE patient_id IS NOT NULL;
-- An erased patient's events (1.3.0) keep seq, type, occurred_at and patient_id; their data becomes {}.
CREATE TRIGGER change_events_are_append_only_on_update BEFORE UPDATE ON change_events
WHEN NOT (NEW.data = '{}' AND NEW.seq = OLD.seq AND NEW.type = OLD.type AND NEW.occurred_at = OLD.occurred_at
          AND NEW.patient_id IS OLD.patient_id
          AND EXISTS (SELECT 1 FROM patients WHERE id = OLD.patient_id AND erased_at IS NOT NULL))
BEGIN
  SELECT RAISE(ABORT, 'the change feed is append-only: an event cannot be changed');
END;
CREATE TRIGGER change_events_are_append_only_on_delete BEFORE DELETE ON change_events
BEGIN
  SELECT RAISE(ABORT, 'the change feed is append-only: an event cannot be deleted');
END;

-- Positions of the change feed a restore left behind (issue 39): numbers that the database it
-- replaced handed out, or may have, after the backup was made. New events are numbered after
-- every range, so no seq and no webhook-id names two different events; GET /events answers an
-- `after` inside a range 409 FEED_POSITION_LOST. Ranges never overlap and grow with first_seq.
CREATE TABLE change_feed_lost_ranges (
  first_seq         INTEGER PRIMARY KEY CHECK (first_seq >= 1),
  last_seq          INTEGER NOT NULL CHECK (last_seq >= first_seq),
  restored_at       TEXT NOT NULL,
  backup_created_at TEXT NOT NULL,
  -- How last_seq was known: read from the replaced database (restore --replaces), or that
  -- database unknown and the margin taken (docs/design-choices.md).
  bound             TEXT NOT NULL CHECK (bound IN ('replaced_database', 'margin'))
) STRICT;
CREATE TRIGGER change_feed_lost_ranges_are_append_only_on_update BEFORE UPDATE ON change_feed_lost_ranges
BEGIN
  SELECT RAISE(ABORT, 'a range of the change feed lost in a restore cannot be changed');
END;
CREATE TRIGGER change_feed_lost_ranges_are_append_only_on_delete BEFORE DELETE ON change_feed_lost_ranges
BEGIN
  SELECT RAISE(ABORT, 'a range of the change feed lost in a restore cannot be deleted');
END;

-- The webhook endpoints (clinic webhook add), each with where it stands in the feed: every
-- event up to its position has been delivered or is not of its types. Delivery is the server's
-- (clinic serve); the desk's commands change the row and the server follows.
CREATE TABLE webhook_endpoints (
  id                 TEXT PRIMARY KEY,
  name               TEXT NOT NULL UNIQUE,
  url                TEXT NOT NULL,
  -- JSON array of event types, or NULL for every type (also those later versions add).
  types              TEXT,
  -- 'whsec_' + base64 of the random key the signatures are made with (Standard Webhooks).
  secret             TEXT NOT NULL,
  state              TEXT NOT NULL CHECK (state IN ('enabled', 'disabled')),
  position           INTEGER NOT NULL CHECK (position >= 0),
  last_delivered_seq INTEGER,
  last_delivered_at  TEXT,
  -- The current run of failures: since when, how many attempts, when the next, and why the last failed.
  failing_since      TEXT,
  failed_attempts    INTEGER NOT NULL DEFAULT 0 CHECK (failed_attempts >= 0),
  next_attempt_at    TEXT,
  last_error         TEXT,
  disabled_at        TEXT,
  created_at         TEXT NOT NULL,
  -- The lowest position it ever held (added, or taken back by a replay): the events after it may
  -- have reached it. NULL for an endpoint added before 1.3.0: the events after it was added.
  first_position     INTEGER
) STRICT;

-- The files of documents a purge deleted (1.3.0): each is deleted once the purge has committed,
-- and its row with it; a file that could not be deleted stays named here, and `serve` tries it
-- again at its next purge while `clinic check` names it.
CREATE TABLE purged_document_files (
  document_id TEXT PRIMARY KEY,
  patient_id  TEXT NOT NULL,
  purged_at   TEXT NOT NULL
) STRICT;

-- A removed endpoint (1.3.0), kept unlisted for the patient's copy: who received what (GDPR Art. 15).
CREATE TABLE removed_webhook_endpoints (
  id             TEXT PRIMARY KEY,
  name           TEXT NOT NULL,
  url            TEXT NOT NULL,
  types          TEXT,
  first_position INTEGER,
  position       INTEGER NOT NULL,
  created_at     TEXT NOT NULL,
  removed_at     TEXT NOT NULL
) STRICT;

-- The clinic's people (interface 1.3.0, "People and roles"): never deleted, only disabled. The
-- name is unique in any case (name_key, the name lower-cased). A PIN is kept only as its scrypt
-- hash, a setup code only as its SHA-256 until it is used or its day is over. Five wrong PINs in
-- a row lock the person for 15 minutes (failed_pins, locked_until). The persons are few (a
-- clinic's staff): the list reads them all in seq order, the order they were added.
CREATE TABLE persons (
  seq                   INTEGER PRIMARY KEY AUTOINCREMENT,
  id                    TEXT NOT NULL UNIQUE,
  name                  TEXT NOT NULL,
  name_key              TEXT NOT NULL UNIQUE,
  -- space-separated role names, in the order admin, reception, practitioner, billing, scheduler
  roles                 TEXT NOT NULL CHECK (roles <> ''),
  enabled               INTEGER NOT NULL CHECK (enabled IN (0, 1)),
  pin_hash              TEXT,
  setup_code_hash       TEXT,
  setup_code_expires_at TEXT,
  failed_pins           INTEGER NOT NULL DEFAULT 0 CHECK (failed_pins >= 0),
  locked_until          TEXT,
  last_login_at         TEXT,
  created_at            TEXT NOT NULL
) STRICT;

-- The clinic's desk PCs (interface 1.3.0, "Pairing"): `desk pair` makes a device with a pairing
-- code (only its SHA-256 kept, valid 10 minutes, once); `desk join` on the new PC trades the code for
-- the device's token (only its SHA-256 kept), sent as Clinic-Device with every request. Never
-- deleted: a revoked device keeps its name (the audit trail names it). The name is unique in any
-- case (name_key). host_name, last_* and desk_version say what IT sees in `desk list`.
CREATE TABLE devices (
  seq             INTEGER PRIMARY KEY AUTOINCREMENT,
  id              TEXT NOT NULL UNIQUE,
  name            TEXT NOT NULL,
  name_key        TEXT NOT NULL UNIQUE,
  code_hash       TEXT UNIQUE,
  code_expires_at TEXT,
  token_hash      TEXT UNIQUE,
  created_at      TEXT NOT NULL,
  joined_at       TEXT,
  revoked_at      TEXT,
  host_name       TEXT,
  last_seen_at    TEXT,
  last_address    TEXT,
  desk_version    TEXT
) STRICT;

-- A person's sessions: a token (only its SHA-256 kept) made by `clinic login` (device_id NULL on
-- the server PC). It ends 30 minutes after last_used_at, at expires_at (12 h after login), or when
-- ended_at is set (end_reason: logged_out, replaced, pin_reset). A request finds its session by
-- the token's hash; the partial index keeps a person's open sessions at hand for reset-pin.
CREATE TABLE sessions (
  id           TEXT PRIMARY KEY,
  token_hash   TEXT NOT NULL UNIQUE,
  person_id    TEXT NOT NULL REFERENCES persons (id),
  device_id    TEXT,
  created_at   TEXT NOT NULL,
  last_used_at TEXT NOT NULL,
  expires_at   TEXT NOT NULL,
  ended_at     TEXT,
  end_reason   TEXT CHECK (end_reason IN ('logged_out', 'replaced', 'pin_reset', 'device_revoked'))
) STRICT;
CREATE INDEX open_sessions_by_person ON sessions (person_id) WHERE ended_at IS NULL;
CREATE INDEX open_sessions_by_device ON sessions (device_id) WHERE ended_at IS NULL AND device_id IS NOT NULL;

-- Appointment reminders (interface 1.3.0): one row per rule for each future appointment of a
-- patient, planned in the booking's transaction and moved by the changes of the appointment and of
-- the rules. state: scheduled, then one final state (sent, failed, withdrawn, expired, skipped)
-- with its reason. rule_ms: how long before the start it is due (the rule it was planned for).
-- channel, recipient, subject and text are what was sent (null until a sending decides them);
-- lease_until holds a row while one server sends it, so no two send it; attempts counts tries
-- whose outcome is known or unknown, next_attempt_at the next try after a transient failure.
-- A booking writes every index of this table twice over (a row per rule), in the booking's
-- commit: so the table has two. id is a random UUID made here and found through its row (seq),
-- never looked up alone: a UNIQUE index on it cost a booking with two rules two to three more
-- pages to write (docs/design-choices.md, "What planning costs").
CREATE TABLE reminders (
  seq                 INTEGER PRIMARY KEY AUTOINCREMENT,
  id                  TEXT NOT NULL,
  appointment_id      TEXT NOT NULL REFERENCES appointments (id),
  patient_id          TEXT NOT NULL REFERENCES patients (id),
  rule_ms             INTEGER NOT NULL CHECK (rule_ms > 0),
  due_at              TEXT NOT NULL,
  state               TEXT NOT NULL CHECK (state IN ('scheduled', 'sent', 'failed', 'withdrawn', 'expired', 'skipped')),
  reason              TEXT,
  channel             TEXT CHECK (channel IN ('sms', 'email')),
  recipient           TEXT,
  subject             TEXT,
  text                TEXT,
  attempts            INTEGER NOT NULL DEFAULT 0 CHECK (attempts >= 0),
  next_attempt_at     TEXT,
  lease_until         TEXT,
  sent_at             TEXT,
  provider_message_id TEXT,
  error               TEXT,
  created_at          TEXT NOT NULL,
  updated_at          TEXT NOT NULL
) STRICT;
-- The sender's scan of the scheduled ones by due_at; GET /reminders in its order (due_at, id), one
-- state at a time, merged (db/reminders.ts), whole or of one clinic day. Without the id: those
-- due at the same instant are sorted when read, where a wider key split its pages more often.
CREATE INDEX reminders_by_state_due ON reminders (state, due_at);
-- An appointment's reminders (withdrawn with it, listed with ?appointment_id=); a patient's,
-- through their appointments.
CREATE INDEX reminders_by_appointment ON reminders (appointment_id);

-- Replies to SMS reminders (interface 1.3.0, "Channels and replies"), read by clinic serve from
-- the gateway: each message once (provider_id, the gateway's id of it), kept 90 days. outcome:
-- confirm or decline (the appointment's patient_confirmed_at / patient_declined_at set, when
-- that changed it), unknown (no word the clinic reads), unmatched (no appointment to come with
-- an SMS reminder sent to that number). The sender's number is kept as E.164 when it is one.
CREATE TABLE reminder_replies (
  id             TEXT PRIMARY KEY,
  provider_id    TEXT NOT NULL UNIQUE,
  received_at    TEXT NOT NULL,
  from_number    TEXT NOT NULL,
  text           TEXT NOT NULL,
  outcome        TEXT NOT NULL CHECK (outcome IN ('confirm', 'decline', 'unknown', 'unmatched')),
  appointment_id TEXT REFERENCES appointments (id),
  patient_id     TEXT REFERENCES patients (id)
) STRICT;
-- reminders replies, newest first; the purge of those older than 90 days.
CREATE INDEX reminder_replies_by_time ON reminder_replies (received_at);
-- The reminders an answer from a number may concern: those sent to it by SMS.
CREATE INDEX sent_sms_reminders_by_recipient ON reminders (recipient) WHERE state = 'sent' AND channel = 'sms';
