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
  scopes     TEXT NOT NULL,          -- space-separated scope names
  created_at TEXT NOT NULL,
  revoked_at TEXT
) STRICT;

CREATE TABLE doctors (
  seq        INTEGER PRIMARY KEY AUTOINCREMENT,  -- stable listing order
  id         TEXT NOT NULL UNIQUE,
  name       TEXT NOT NULL,
  color      TEXT NOT NULL,
  created_at TEXT NOT NULL
) STRICT;

CREATE TABLE services (
  seq          INTEGER PRIMARY KEY AUTOINCREMENT,
  id           TEXT NOT NULL UNIQUE,
  name         TEXT NOT NULL,
  duration_min INTEGER NOT NULL CHECK (duration_min > 0),
  price_cents  INTEGER NOT NULL CHECK (price_cents >= 0),
  color        TEXT NOT NULL,
  created_at   TEXT NOT NULL
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
  last_panoramic_date            TEXT
) STRICT;

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
  confirmation_reminder_sent_at TEXT
) STRICT;

-- A patient's appointments in time order: the lookup behind the foreign key and any patient calendar.
CREATE INDEX appointments_by_patient ON appointments (patient_id, start_at);

-- The services of an appointment (`service_ids`), in the order the request gave them.
CREATE TABLE appointment_services (
  appointment_id TEXT NOT NULL REFERENCES appointments (id),
  position       INTEGER NOT NULL CHECK (position >= 0),
  service_id     TEXT NOT NULL REFERENCES services (id),
  PRIMARY KEY (appointment_id, position)
) STRICT, WITHOUT ROWID;

-- Uploaded documents: the metadata only. The bytes are the file documents/<patient_id>/<id> in
-- the data directory, put there only after this row is committed (decisions.md §6).
CREATE TABLE documents (
  id           TEXT PRIMARY KEY,
  patient_id   TEXT NOT NULL REFERENCES patients (id),
  filename     TEXT NOT NULL,       -- the client's base name, for people; never a path on disk
  content_type TEXT NOT NULL,
  size         INTEGER NOT NULL CHECK (size > 0),
  sha256       TEXT NOT NULL,       -- lowercase hex of the stored bytes
  title        TEXT,
  type         TEXT NOT NULL,
  created_at   TEXT NOT NULL
) STRICT;

-- A patient's documents, newest last: the lookup behind the foreign key and any document list.
CREATE INDEX documents_by_patient ON documents (patient_id, created_at);
