import { IDEMPOTENCY_HEADER_FIELDS } from '../../fields/idempotency-fields.js';
import { resolve } from 'node:path';
import type { Command } from 'commander';
import { PATIENT_OVERVIEW, type PatientOverviewResult } from '../../domain/desk/patient-overview.js';
import { CREATE_PATIENT_AT_DESK } from '../../domain/desk/desk-rules.js';
import { FIND_PATIENTS, type PatientSummary } from '../../domain/patients/find-patients.js';
import { ValidationError } from '../../errors.js';
import { DEFAULT_PAGE_LIMIT } from '../../domain/pagination.js';
import { isPlainObject } from '../../domain/validation/structs.js';
import { problems } from '../../domain/validation/problems.js';
import { parseJsonBody } from '../../domain/validation/json-body-text.js';
import { issue } from '../../domain/validation/validate.js';
import { PATIENT_INPUT_FIELDS, PATIENT_PATCH_FIELDS } from '../../fields/patient-fields.js';
import { UPDATE_PATIENT } from '../../domain/patients/update-patient.js';
import { resolvePatientReference } from '../../domain/references.js';
import { patientVersion } from '../../domain/patients/read-patient.js';
import { versionTag } from '../../domain/if-match.js';
import { InvalidArgumentError } from 'commander';
import type { FieldSpec } from '../../fields/field-spec.js';
import {
  patientLabel,
  calendarDay,
  deskRecord,
  deskTable,
  fieldLabel,
  fieldValue,
  heading,
  localDay,
  localDateTime,
  money,
  shortDate,
  statusText,
  timeSpan,
} from '../desk-format.js';
import { documentTable } from '../document-table.js';
import { addFieldOptions, fieldArgument, readFieldOptions, type OptionGroups } from '../field-options.js';
import { issuedOn } from '../invoice-printout.js';
import type { CliIo } from '../io.js';
import type { CommonOptions } from '../output.js';
import { subcommand } from '../subcommand.js';
import { registerPatientExportCommand } from './patient-export.js';
import { registerPatientEraseCommand } from './patient-erase.js';
import { runUseCaseCommand } from '../use-case-command.js';
import { readNamedFile } from '../../domain/named-files.js';
import { parseFilePath } from '../input-file.js';

/**
 * What is wrong where JSON text stops being JSON, for people: its line and column, and a comma
 * left after the last item (`{"a": 1,}`, which JSON does not allow), said as such.
 */
function jsonMistake(text: string, position: number): string {
  const before = text.slice(0, position);
  const line = before.split('\n').length;
  const column = position - before.lastIndexOf('\n');
  const next = text[position];
  const where = `line ${line}, column ${column}`;
  if (next === undefined) return `from ${where} on: it ends too early (a closing } or ] or a quote is missing)`;
  if ((next === '}' || next === ']') && before.trimEnd().endsWith(',')) {
    return `at ${where}: a comma before ${next}, which JSON does not allow after the last item; remove it`;
  }
  return `at ${where}: JSON does not allow ${JSON.stringify(next)} there`;
}

/**
 * The JSON object in a --file, read as the API reads a request body (parseJsonBody) and refused
 * alike (VALIDATION_ERROR json_invalid), with where and what the mistake is for people.
 */
function readBodyFile(path: string): Record<string, unknown> {
  let parsed: unknown;
  const raw = readNamedFile(path);
  try {
    parsed = parseJsonBody(raw);
  } catch (error) {
    if (!(error instanceof ValidationError)) throw error;
    const text = raw.toString('utf8');
    throw new ValidationError(
      error.issues.map((failing) =>
        failing.type === 'json_invalid' && typeof failing.loc[1] === 'number'
          ? { ...failing, msg: `${resolve(path)} is not JSON ${jsonMistake(text, failing.loc[1])}` }
          : { ...failing, msg: `${resolve(path)}: ${failing.msg}` },
      ),
    );
  }
  if (!isPlainObject(parsed)) throw new ValidationError([issue(['body'], problems.modelAttributesType(), parsed ?? null)]);
  return parsed;
}

/** A patient field as text, or null when it is empty or not text. */
const text = (value: unknown): string | null => (typeof value === 'string' && value.trim() !== '' ? value : null);

/** What a patient owes in every currency, for people: `85.50 EUR`, `40.00 EUR + 4000.00 JPY`, or `-` when nothing is open. */
const owed = (patient: Pick<PatientSummary, 'outstanding_balances'>) =>
  patient.outstanding_balances.map((balance) => money(balance.amount, balance.currency)).join(' + ') || '-';

/** `clinic patient find` for people: one line per patient, by name as the search orders them. */
function formatPatientList(patients: readonly PatientSummary[], more: boolean, words: string): string {
  if (patients.length === 0) return `No patient matches "${words}".\n`;
  const table = deskTable(
    [
      { header: 'Number' },
      { header: 'Name', shrink: true },
      { header: 'Born' },
      { header: 'Mobile', shrink: true },
      { header: 'Email', shrink: true },
      { header: 'Owes', align: 'right' },
    ],
    patients.map((patient) => [
      patient.patient_number,
      `${patient.last_name}, ${patient.first_name}${patient.is_active ? '' : ' (inactive)'}`,
      patient.date_of_birth === null ? '' : shortDate(patient.date_of_birth),
      patient.mobile ?? '',
      patient.email ?? '',
      owed(patient),
    ]),
  );
  const note = more
    ? `Only the first ${patients.length} are shown: add a word (a first name, the date of birth) to narrow the search.\n`
    : '';
  return table + note;
}

/** `clinic patient show` for people: the record, then the coming appointments, open invoices and documents. */
function formatPatientOverview({ overview, context, billingEnabled, moreAppointments }: PatientOverviewResult): string {
  const { patient } = overview;
  const { timeZone } = context;
  const address = [text(patient.address_street), [text(patient.address_zip), text(patient.address_city)].filter(Boolean).join(' ')]
    .filter(Boolean)
    .join(', ');
  const insurance = [text(patient.insurer_name), text(patient.insurance_number)].filter(Boolean).join(' ');
  const dateOfBirth = text(patient.date_of_birth);
  const record = deskRecord([
    ['Born', dateOfBirth === null ? null : shortDate(dateOfBirth)],
    ['Mobile', text(patient.mobile)],
    ['Phone', text(patient.phone)],
    ['Email', text(patient.email)],
    ['Address', address],
    ['Insurance', insurance],
    ['Cave', text(patient.cave)],
    ['Notes', text(patient.notes)],
    ['Owes', owed(patient)],
    // What `patient edit --if-version` takes: a change only if no one changed the patient since.
    ['Version', String(patient.version)],
    // 1.3.0: restricted until the last purge; only an admin gets here.
    ['Erased', patient.erased_at === null ? null : `${localDateTime(patient.erased_at, timeZone)}: restricted, only an admin sees it`],
  ]);
  const name = `${patient.patient_number}  ${String(patient.first_name)} ${String(patient.last_name)}${patient.is_active ? '' : '  (inactive)'}`;
  const appointments = deskTable(
    [
      { header: 'Date' },
      { header: 'Time' },
      { header: 'Number' },
      { header: 'Doctor', shrink: true },
      { header: 'Service', shrink: true },
      { header: 'Status', shrink: true },
    ],
    overview.upcoming_appointments.map((appointment) => {
      const day = localDay(appointment.start_at, timeZone);
      return [
        calendarDay(day),
        timeSpan(appointment.start_at, appointment.end_at, timeZone, day),
        appointment.appointment_number,
        appointment.resource_id === null ? '' : (context.doctorNames.get(appointment.resource_id) ?? ''),
        appointment.services.map((service) => service.name).join(', ') || (appointment.service_name ?? ''),
        statusText(appointment.status),
      ];
    }),
  );
  const invoices =
    overview.open_invoices === null
      ? '(not shown to your roles)\n'
      : billingEnabled
        ? deskTable(
            [
              { header: 'Invoice' },
              { header: 'Issued' },
              { header: 'Status' },
              { header: 'Total', align: 'right' },
              { header: 'Balance', align: 'right' },
            ],
            overview.open_invoices.map((invoice) => [
              invoice.invoice_number,
              issuedOn(invoice, timeZone),
              statusText(invoice.status),
              money(invoice.total, invoice.currency),
              money(invoice.balance, invoice.currency),
            ]),
          )
        : '(the billing module is off)\n';
  const documents = overview.documents === null ? '(not shown to your roles)\n' : documentTable(overview.documents, timeZone);
  return [
    heading(name) + record,
    heading('Next appointments') +
      appointments +
      (moreAppointments
        ? `Only the next ${overview.upcoming_appointments.length} are shown: \`clinic appointment list --date YYYY-MM-DD\` shows a later day.\n`
        : ''),
    heading('Open invoices') + invoices,
    heading('Documents') + documents,
  ].join('\n');
}

/** `clinic create-patient`, and the desk's `clinic patient find|show|edit|export`. */
export function registerPatientCommands(program: Command, io: CliIo): void {
  const group = program.command('patient').description('find patients, show one and correct one, as the front desk needs them');
  registerEditPatientCommand(group, io);
  registerPatientExportCommand(group, io);
  registerPatientEraseCommand(group, io);
  fieldArgument(
    subcommand(
      group,
      'find',
      `find patients by name, number (P-42), date of birth, email or phone (the first ${DEFAULT_PAGE_LIMIT}, by name)`,
    ),
    '<text...>',
    'words that must all match, e.g. "huber anna" or 23.07.1961',
    'q',
  ).action(async (words: string[], options: CommonOptions) => {
    const q = words.join(' ');
    await runUseCaseCommand(io, options, FIND_PATIENTS, {
      request: () => ({ query: { q } }),
      json: (page) => page.items,
      print: (page) => formatPatientList(page.items, page.next !== null, q),
    });
  });
  fieldArgument(
    subcommand(group, 'show', "a patient's record, balance, next appointments, open invoices and documents"),
    '<ref>',
    'the patient: its number (P-000042, P-42) or its id',
    'patient_id',
  ).action(async (reference: string, options: CommonOptions) => {
    await runUseCaseCommand(io, options, PATIENT_OVERVIEW, {
      request: (db) => ({ path: { patient_id: resolvePatientReference(db, reference) } }),
      json: (result) => result.overview,
      print: (result) => formatPatientOverview(result),
    });
  });
}

/** The patient's many fields in the help of create-patient and patient edit, grouped as a patient form groups them. */
const PATIENT_OPTION_GROUPS: OptionGroups = [
  ['Name and contact:', /^(first_name|last_name|salutation|title|gender|date_of_birth|email|mobile|phone|fax|avatar)$/],
  ['Address:', /^(visit_)?address_/],
  [
    'Insurance and billing:',
    /^(insur|has_supplemental|supplemental|billing_|reference_number|tin$|prescription|discount|dunning|bank_|suppress_payment)/,
  ],
  ['Recall:', /^recall_/],
  ['Work and referral:', /^(occupation|employer_|referr|gp_name)/],
  ['Consent and portal:', /^(gdpr_|newsletter|consent_|contact_consent|communication_prefs|portal_access|link_existing)/],
  ['Medical and other:', /./],
];

/** `clinic create-patient`: the same fields and rules as POST /patients. */
export function registerCreatePatientCommand(program: Command, io: CliIo): void {
  const command = subcommand(program, 'create-patient', 'create a patient (same fields and rules as POST /patients)')
    .option(
      '--file <patient.json>',
      'read the patient from a JSON file shaped like the POST /patients body; options override its fields',
      parseFilePath,
    )
    .option(
      '--allow-duplicate',
      'create the patient although an active patient has the same name and date of birth (refused by default: PATIENT_DUPLICATE)',
    );
  addFieldOptions(command, PATIENT_INPUT_FIELDS, {
    enforceRequired: false,
    requiredElsewhere: 'unless in --file',
    // Whether they are needed is the clinic's to say, not the schema's (settings set-contact-rule).
    descriptions: {
      email: 'Email; up to 320 characters (required as the contact rule says: clinic settings show)',
      mobile: 'Mobile; up to 32 characters (required as the contact rule says: clinic settings show)',
    },
    groups: PATIENT_OPTION_GROUPS,
  });
  addFieldOptions(command, IDEMPOTENCY_HEADER_FIELDS).action(
    async (options: CommonOptions & { file?: string; allowDuplicate?: boolean } & Record<string, unknown>) => {
      const base = options.file === undefined ? {} : readBodyFile(options.file);
      // The desk's rule on a second patient of one name and date of birth (desk-rules.ts), waived by --allow-duplicate alone.
      const duplicate = options.allowDuplicate === true ? 'allow' : 'reject';
      await runUseCaseCommand(io, options, CREATE_PATIENT_AT_DESK, {
        request: (db) => ({
          header: readFieldOptions(options, IDEMPOTENCY_HEADER_FIELDS, db),
          body: { ...readFieldOptions(options, PATIENT_INPUT_FIELDS, db, { base }), duplicate },
        }),
        print: (patient) =>
          heading(`Patient ${patientLabel(patient.patient_number, text(patient.first_name), text(patient.last_name))} created`) +
          deskRecord([
            ['Born', text(patient.date_of_birth) === null ? null : shortDate(patient.date_of_birth as string)],
            ['Mobile', text(patient.mobile)],
            ['Email', text(patient.email)],
          ]),
      });
    },
  );
}

/** `--if-version 3`: a positive whole number. */
function parseVersion(text: string): number {
  if (!/^[1-9]\d{0,8}$/.test(text)) throw new InvalidArgumentError('expected a version number (1, 2, …) as `patient show` prints it');
  return Number(text);
}

/**
 * `clinic patient edit REF --field value…`: PATCH /patients/{patient_id} with the options given
 * as its merge patch. An option given as empty text clears a field that may be empty (null).
 * The change applies to one version of the patient: `--if-version N`, else the version read just
 * before it (If-Match either way), so that a change made meanwhile by someone else is refused
 * (PRECONDITION_FAILED) rather than silently overwritten; the printout says which version it was.
 */
function registerEditPatientCommand(group: Command, io: CliIo): void {
  const command = fieldArgument(
    subcommand(group, 'edit', 'correct a patient: the fields given change, the others stay (same rules as PATCH /patients/{id})'),
    '<ref>',
    'the patient: its number (P-000042, P-42) or its id',
    'patient_id',
  ).option(
    '--if-version <n>',
    'change only if the patient is still at this version, as `patient show` prints it (default: the version read just before)',
    parseVersion,
  );
  addFieldOptions(command, PATIENT_PATCH_FIELDS, {
    descriptions: { is_active: 'false: the patient is kept, with its records, and still found; true or false' },
    groups: PATIENT_OPTION_GROUPS,
  }).action(async (reference: string, options: CommonOptions & { ifVersion?: number } & Record<string, unknown>) => {
    let readVersion: number | undefined;
    await runUseCaseCommand(io, options, UPDATE_PATIENT, {
      request(db) {
        const patch = readFieldOptions(options, PATIENT_PATCH_FIELDS, db);
        // Empty text clears a field that may be empty, as null does over HTTP.
        for (const spec of PATIENT_PATCH_FIELDS as readonly FieldSpec[])
          if (patch[spec.name] === '' && spec.nullable === true) patch[spec.name] = null;
        const patientId = resolvePatientReference(db, reference);
        readVersion = options.ifVersion ?? patientVersion(db, patientId);
        return {
          path: { patient_id: patientId },
          header: readVersion === undefined ? {} : { 'if-match': versionTag(readVersion) },
          body: patch,
        };
      },
      json: ({ patient }) => patient,
      print({ patient, changed }) {
        const label = patientLabel(patient.patient_number, text(patient.first_name), text(patient.last_name));
        if (changed.length === 0) return `Nothing changed: ${label} already has these values (version ${patient.version}).\n`;
        const shown = changed.map((name) => [fieldLabel(name), fieldValue((patient as Record<string, unknown>)[name])] as const);
        const which = options.ifVersion === undefined ? 'the version read just before the change' : 'as --if-version asked';
        return (
          heading(`Patient ${label} changed (version ${patient.version})`) +
          deskRecord(shown) +
          `The change applied to version ${readVersion ?? patient.version - 1}, ${which}.\n`
        );
      },
    });
  });
}
