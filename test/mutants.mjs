// The rules `npm run mutants` breaks one at a time (scripts/mutants.mjs): in `file`, the one place
// `from` stands is replaced by `to`, and one of `tests` must then fail. Each names a rule whose
// tests moved into a use case's table (issue 41), so the table is shown to hold it alone.

const BOOK = 'src/domain/appointments/book-appointment.ts';
const BOOK_TABLE = ['test/domain/appointments/book-appointment.test.ts'];
const UPDATE = 'src/domain/appointments/update-appointment.ts';
const UPDATE_TABLE = ['test/domain/appointments/update-appointment.test.ts'];
const CREDIT = 'src/domain/invoices/credit-invoice.ts';
const CREDIT_TABLE = ['test/domain/invoices/credit-invoice.test.ts'];
const PAY = 'src/domain/payments/record-payment.ts';
const PAY_TABLE = ['test/domain/payments/record-payment.test.ts'];
const REFUND = 'src/domain/payments/refund-payment.ts';
const REFUND_TABLE = ['test/domain/payments/refund-payment.test.ts'];
const VOID = 'src/domain/invoices/void-invoice.ts';
const VOID_TABLE = ['test/domain/invoices/void-invoice.test.ts'];
const PATIENT_UPDATE = 'src/domain/patients/update-patient.ts';
const PATIENT_UPDATE_TABLE = ['test/domain/patients/update-patient.test.ts'];
const SETTINGS_TABLE = ['test/domain/desk/clinic-settings.test.ts'];
const CATALOG = 'src/domain/catalog.ts';
const CATALOG_TABLE = ['test/domain/catalog.test.ts'];
const READS = [
  'test/domain/patients/read-patient.test.ts',
  'test/domain/patients/find-patients.test.ts',
  'test/domain/appointments/list-appointments.test.ts',
  'test/domain/invoices/read-invoice.test.ts',
  'test/domain/invoices/list-invoices.test.ts',
];

/** @type {{ title: string; file: string; from: string; to: string; tests: string[] }[]} */
export const MUTANTS = [
  // Booking.
  {
    title: 'booking: a retired doctor or service is bookable',
    file: BOOK,
    from: 'refuseRetired(doctor, services as ServiceRow[]);',
    to: '',
    tests: BOOK_TABLE,
  },
  {
    title: 'booking: an empty service_ids replaces service_id',
    file: BOOK,
    from: 'if (listed !== undefined && listed.length > 0) return listed;',
    to: 'if (listed !== undefined) return listed;',
    tests: BOOK_TABLE,
  },
  {
    title: 'booking: overlap reject is not checked',
    file: BOOK,
    from: "if (values.overlap === 'reject') refuseOverlap(db, { ...values, id });",
    to: '',
    tests: BOOK_TABLE,
  },
  {
    title: 'booking: a null patient_id is not missing',
    file: BOOK,
    from: 'if (input.patient_id === null) found.push',
    to: 'if (false) found.push',
    tests: BOOK_TABLE,
  },
  {
    title: "booking at the desk: an end without end_at ignores the services' durations",
    file: BOOK,
    from: 'return sum + service.duration_min;',
    to: 'return sum + 30;',
    tests: BOOK_TABLE,
  },
  {
    title: 'booking: not confirmed by the clinic at creation',
    file: BOOK,
    from: 'columns.clinic_confirmed_at = now;',
    to: '',
    tests: BOOK_TABLE,
  },
  {
    title: 'booking: an end equal to the start is taken',
    file: BOOK,
    from: 'if (Date.parse(times.end_at) <= Date.parse(times.start_at))',
    to: 'if (Date.parse(times.end_at) < Date.parse(times.start_at))',
    tests: BOOK_TABLE,
  },
  {
    title: 'booking: recorded as another action',
    file: BOOK,
    from: "onRecordOf('appointment.create'",
    to: "onRecordOf('appointment.update'",
    tests: BOOK_TABLE,
  },
  // Changing an appointment.
  {
    title: 'appointment change: a no-show may complete',
    file: UPDATE,
    from: "no_show: ['arrived'],",
    to: "no_show: ['arrived', 'completed'],",
    tests: UPDATE_TABLE,
  },
  {
    title: "appointment change: a 1.0.0 free status is held to the five's moves",
    file: UPDATE,
    from: 'return from === to || !isStatus(from) ||',
    to: 'return from === to ||',
    tests: UPDATE_TABLE,
  },
  {
    title: 'appointment change: a status move is not stamped',
    file: UPDATE,
    from: "set('status_changed_at', now);",
    to: '',
    tests: UPDATE_TABLE,
  },
  {
    title: "appointment change: a reschedule keeps the patient's confirmation",
    file: UPDATE,
    from: "set('patient_confirmed_at', null);",
    to: '',
    tests: UPDATE_TABLE,
  },
  {
    title: 'appointment change: an arrived appointment may move',
    file: UPDATE,
    from: "if (isStatus(row.status) && row.status !== 'booked') throw",
    to: 'if (false) throw',
    tests: UPDATE_TABLE,
  },
  {
    title: 'appointment change: service_id alone always replaces the list',
    file: UPDATE,
    from: 'const followsServiceId = current.length === 0 || (current.length === 1 && current[0] === row.service_id);',
    to: 'const followsServiceId = true;',
    tests: UPDATE_TABLE,
  },
  {
    title: 'appointment change: a retired service already booked is refused on any change',
    file: UPDATE,
    from: 'const named = [...after].filter((id) => patch.rescheduled || !before.has(id));',
    to: 'const named = [...after];',
    tests: UPDATE_TABLE,
  },
  {
    title: 'appointment change: an end equal to the start is taken',
    file: UPDATE,
    from: 'if (Date.parse(endAt) <= Date.parse(startAt)) {',
    to: 'if (Date.parse(endAt) < Date.parse(startAt)) {',
    tests: UPDATE_TABLE,
  },
  {
    title: 'reschedule: the length is not kept',
    file: UPDATE,
    from: 'const endAt = body.end_at ?? (length === undefined',
    to: 'const endAt = body.end_at ?? (true',
    tests: UPDATE_TABLE,
  },
  {
    title: 'appointment change: an empty service_ids empties the list',
    file: UPDATE,
    from: 'if (serviceIds.length > 0) return serviceIds;',
    to: 'return serviceIds;',
    tests: UPDATE_TABLE,
  },
  {
    title: 'appointment change: a change of nothing appends a change event',
    file: UPDATE,
    from: 'changed.length === 0\n    ? []',
    to: 'false\n    ? []',
    tests: UPDATE_TABLE,
  },
  // Credit notes.
  {
    title: 'credit note: one cent over the balance is taken',
    file: CREDIT,
    from: 'if (balanceCents < 0) {',
    to: 'if (balanceCents < -1) {',
    tests: CREDIT_TABLE,
  },
  {
    title: 'credit note: an unpaid invoice may be credited to nothing',
    file: CREDIT,
    from: 'if (balanceCents === 0 && credit.amountPaidCents === 0) throw errors.invoiceFullyCredited();',
    to: '',
    tests: CREDIT_TABLE,
  },
  {
    title: 'credit note: an unpaid invoice becomes partially paid',
    file: CREDIT,
    from: "credit.amountPaidCents === 0 ? 'issued' : 'partially_paid'",
    to: "'partially_paid'",
    tests: CREDIT_TABLE,
  },
  {
    title: 'credit note: paying an invoice off does not tell the patient',
    file: CREDIT,
    from: "if (status === 'paid' && invoice.status !== 'paid') queuePaidInvoiceNotification(db, invoice, now);",
    to: '',
    tests: CREDIT_TABLE,
  },
  {
    title: 'credit note: a void invoice is credited',
    file: CREDIT,
    from: "if (invoice.status === 'void') throw errors.invoiceVoid();",
    to: '',
    tests: CREDIT_TABLE,
  },
  {
    title: 'credit note: the refusal names the wrong balance',
    file: CREDIT,
    from: 'const asked = balanceCents + credit.amountCents;',
    to: 'const asked = balanceCents;',
    tests: CREDIT_TABLE,
  },
  {
    title: 'credit note: a blank reason is taken',
    file: CREDIT,
    from: 'moreIssues: ({ body }, fieldIssues) => blankReasonIssues(body, fieldIssues),',
    to: '',
    tests: CREDIT_TABLE,
  },
  {
    title: "credit note: the change event's amount is wrong",
    file: CREDIT,
    from: 'amount: creditNote.amount,',
    to: 'amount: 0,',
    tests: CREDIT_TABLE,
  },
  // Payments, refunds, voids and patient edits (their tables came first).
  {
    title: 'payment: one cent over the balance is taken',
    file: PAY,
    from: 'if (payment.amountCents > invoice.balance_cents) {',
    to: 'if (payment.amountCents > invoice.balance_cents + 1) {',
    tests: PAY_TABLE,
  },
  {
    title: 'payment: a void invoice takes one',
    file: PAY,
    from: "if (invoice.status === 'void') throw errors.invoiceVoid();",
    to: '',
    tests: PAY_TABLE,
  },
  {
    title: 'payment: paying an invoice off does not tell the patient',
    file: PAY,
    from: "if (status === 'paid') queuePaidInvoiceNotification(db, invoice, now);",
    to: '',
    tests: PAY_TABLE,
  },
  {
    title: 'refund: more than is left of the payment is taken',
    file: REFUND,
    from: 'if (refundableCents === 0 || amountCents > refundableCents) {',
    to: 'if (refundableCents === 0) {',
    tests: REFUND_TABLE,
  },
  {
    title: 'refund: a goodwill refund reopens the invoice',
    file: REFUND,
    from: 'if (!body.goodwill) {',
    to: 'if (true) {',
    tests: REFUND_TABLE,
  },
  {
    title: 'void: an invoice with payments is voided',
    file: VOID,
    from: 'if (invoice.amount_paid_cents > 0) throw',
    to: 'if (false) throw',
    tests: VOID_TABLE,
  },
  {
    title: 'patient edit: If-Match is not checked',
    file: PATIENT_UPDATE,
    from: 'if (!matchesIfMatch(ifMatch, row.version))',
    to: 'if (false)',
    tests: PATIENT_UPDATE_TABLE,
  },
  {
    title: 'patient edit: a field merged into an object replaces it',
    file: PATIENT_UPDATE,
    from: "if (spec.kind === 'object') value = { ...(fromColumn(spec, stored) as object), ...(value as object) };",
    to: '',
    tests: PATIENT_UPDATE_TABLE,
  },
  // What reads record (their HTTP and desk sequences became these tables' rows).
  {
    title: 'a search records the text searched for as null',
    file: 'src/domain/patients/find-patients.ts',
    from: 'detail: { q: query.q ?? null },',
    to: 'detail: { q: null },',
    tests: READS,
  },
  {
    title: 'a list records a patient once per item, not once per patient',
    file: 'src/domain/audit/record-audit.ts',
    from: 'if (patientId === null || seen.has(patientId)) continue;',
    to: 'if (patientId === null) continue;',
    tests: READS,
  },
  {
    title: 'a list records the blocked time of no patient',
    file: 'src/domain/audit/record-audit.ts',
    from: 'if (patientId === null || seen.has(patientId)) continue;',
    to: 'if (seen.has(patientId!)) continue;',
    tests: READS,
  },
  {
    title: 'an appointment of no patient records a read',
    file: 'src/domain/audit/record-audit.ts',
    from: 'return patientId === null ? [] : [{ action, patientId, subjectId }];',
    to: 'return [{ action, patientId: patientId!, subjectId }];',
    tests: READS,
  },
  {
    title: 'an invoice read records another action',
    file: 'src/domain/invoices/read-invoice.ts',
    from: "audit: (invoice) => [{ action: 'invoice.read',",
    to: "audit: (invoice) => [{ action: 'invoice.list' as 'invoice.read',",
    tests: READS,
  },
  // Settings (their desk loops of names became SET_TIME_ZONE's rows).
  {
    title: 'a time zone refused offers nothing',
    file: 'src/domain/settings.ts',
    from: 'const suggestions = suggestTimeZones(typed);',
    to: 'const suggestions: string[] = [];',
    tests: SETTINGS_TABLE,
  },
  {
    title: 'a time zone typed between spaces is refused',
    file: 'src/domain/settings.ts',
    from: 'const timeZone = canonicalTimeZone(typed.trim());',
    to: 'const timeZone = canonicalTimeZone(typed);',
    tests: SETTINGS_TABLE,
  },
  {
    title: 'a name set again counts as changed',
    file: 'src/domain/settings.ts',
    from: 'return { name, changed: before !== name };',
    to: 'return { name, changed: true };',
    tests: SETTINGS_TABLE,
  },
  {
    title: 'records may be kept 31 years',
    file: 'src/domain/retention/retention-rules.ts',
    from: 'export const MAX_RECORDS_YEARS = 30;',
    to: 'export const MAX_RECORDS_YEARS = 31;',
    tests: SETTINGS_TABLE,
  },
  // The catalog.
  {
    title: 'catalog: names are compared as written',
    file: CATALOG,
    from: 'const wanted = foldName(name);',
    to: 'const wanted = name;',
    tests: CATALOG_TABLE,
  },
  {
    title: 'catalog: a colour name is stored as typed',
    file: CATALOG,
    from: 'const storedColor = (color: string) => (HEX_COLOR.test(color) ? color : color.toLowerCase());',
    to: 'const storedColor = (color: string) => color;',
    tests: CATALOG_TABLE,
  },
  {
    title: 'catalog: any colour is taken',
    file: CATALOG,
    from: "if (!isPlainObject(body) || typeof body.color !== 'string') return [];",
    to: 'return [];',
    tests: CATALOG_TABLE,
  },
  {
    title: "catalog: a change of case of a doctor's own name is taken for another's",
    file: CATALOG,
    from: 'if (body.allow_duplicate !== true && foldName(after.name) !== foldName(row.name)) {\n      const holder = holderOf(listActiveDoctorRows(db)',
    to: 'if (body.allow_duplicate !== true) {\n      const holder = holderOf(listActiveDoctorRows(db)',
    tests: CATALOG_TABLE,
  },
];
