import type { PatientExportContents } from './export-contents.js';

/**
 * The copy's `summary.html`: one self-contained page (no script, no link, its style inline) a
 * patient can open and read, in German for a clinic in Austria or Germany, else in English:
 * the record, appointments, money, documents, reminders, who received the data and how long it
 * is kept. The files beside it hold every field; this page says what there is.
 */

const WORDS = {
  en: {
    title: 'Your data at',
    titleAlone: 'Your data',
    intro: 'This page summarises the copy of your data. The other files of this archive hold every record in full (see README.txt).',
    made: 'Made',
    record: 'Your record',
    number: 'Patient number',
    name: 'Name',
    born: 'Date of birth',
    email: 'E-mail',
    mobile: 'Mobile',
    phone: 'Phone',
    address: 'Address',
    appointments: 'Appointments',
    when: 'When',
    what: 'What',
    status: 'Status',
    money: 'Invoices and payments',
    invoice: 'Invoice',
    issued: 'Issued',
    total: 'Total',
    paid: 'Paid',
    balance: 'Open',
    documents: 'Documents',
    stored: 'Stored',
    title_: 'Title',
    file: 'File',
    reminders: 'Reminders',
    due: 'Due',
    channel: 'Channel',
    state: 'State',
    recipients: 'Who received your data',
    keys: 'Connected programs (API keys)',
    webhooks: 'Notified systems (webhooks)',
    messages: 'Messages sent to you',
    from: 'From',
    to: 'To',
    count: 'Count',
    retention: 'How long your data is kept',
    noRetention: 'The clinic has not yet set its retention rules.',
    rule: 'Rule',
    covers: 'Covers',
    years: 'Years',
    reference: 'Legal basis',
    none: 'None.',
  },
  de: {
    title: 'Ihre Daten bei',
    titleAlone: 'Ihre Daten',
    intro:
      'Diese Seite fasst die Kopie Ihrer Daten zusammen. Die übrigen Dateien dieses Archivs enthalten jeden Eintrag vollständig (siehe README.txt).',
    made: 'Erstellt',
    record: 'Ihre Stammdaten',
    number: 'Patientennummer',
    name: 'Name',
    born: 'Geburtsdatum',
    email: 'E-Mail',
    mobile: 'Mobil',
    phone: 'Telefon',
    address: 'Adresse',
    appointments: 'Termine',
    when: 'Wann',
    what: 'Was',
    status: 'Status',
    money: 'Rechnungen und Zahlungen',
    invoice: 'Rechnung',
    issued: 'Ausgestellt',
    total: 'Betrag',
    paid: 'Bezahlt',
    balance: 'Offen',
    documents: 'Dokumente',
    stored: 'Gespeichert',
    title_: 'Titel',
    file: 'Datei',
    reminders: 'Erinnerungen',
    due: 'Fällig',
    channel: 'Kanal',
    state: 'Stand',
    recipients: 'Wer Ihre Daten erhalten hat',
    keys: 'Angebundene Programme (API-Schlüssel)',
    webhooks: 'Benachrichtigte Systeme (Webhooks)',
    messages: 'Nachrichten an Sie',
    from: 'Von',
    to: 'Bis',
    count: 'Anzahl',
    retention: 'Wie lange Ihre Daten aufbewahrt werden',
    noRetention: 'Die Praxis hat ihre Aufbewahrungsregeln noch nicht festgelegt.',
    rule: 'Regel',
    covers: 'Umfasst',
    years: 'Jahre',
    reference: 'Rechtsgrundlage',
    none: 'Keine.',
  },
} as const;

type Words = (typeof WORDS)[keyof typeof WORDS];

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
const escape = (value: unknown) => String(value ?? '').replace(/[&<>"']/g, (c) => ESCAPES[c]!);

/** The language of the page: German for a clinic in Austria or Germany. */
export const summaryLanguage = (country: string | null): 'de' | 'en' => (country === 'AT' || country === 'DE' ? 'de' : 'en');

/** A table of `rows` under `head`; without a head, each row's first cell is its heading. */
function table(words: Words, head: readonly string[] | null, rows: readonly (readonly unknown[])[]): string {
  if (rows.length === 0) return `<p>${escape(words.none)}</p>`;
  const cells = (row: readonly unknown[], tag: string) => row.map((cell) => `<${tag}>${escape(cell)}</${tag}>`).join('');
  const body = rows.map((row) =>
    head === null ? `<tr><th>${escape(row[0])}</th>${cells(row.slice(1), 'td')}</tr>` : `<tr>${cells(row, 'td')}</tr>`,
  );
  return `<table>${head === null ? '' : `<thead><tr>${cells(head, 'th')}</tr></thead>`}<tbody>${body.join('')}</tbody></table>`;
}

const STYLE =
  'body{font-family:system-ui,sans-serif;max-width:60em;margin:2em auto;padding:0 1em;color:#111}' +
  'table{border-collapse:collapse;width:100%;margin-bottom:1em}th,td{border:1px solid #bbb;padding:.25em .5em;text-align:left;vertical-align:top}' +
  'th{background:#eee}tbody th{width:12em}h1{font-size:1.5em}h2{font-size:1.2em;margin-top:1.5em}';

/** The page of a patient's copy. */
export function exportSummaryHtml(contents: PatientExportContents): string {
  const language = summaryLanguage(contents.clinic.country);
  const words = WORDS[language];
  const locale = language === 'de' ? 'de-AT' : 'en-GB';
  const zone = contents.clinic.timeZone;
  const dateTime = new Intl.DateTimeFormat(locale, { dateStyle: 'medium', timeStyle: 'short', timeZone: zone });
  const date = new Intl.DateTimeFormat(locale, { dateStyle: 'medium', timeZone: zone });
  const at = (iso: string | null) => (iso === null ? '' : dateTime.format(new Date(iso)));
  const day = (iso: string | null) => (iso === null ? '' : date.format(new Date(iso)));
  const amount = (value: number, currency: string) => new Intl.NumberFormat(locale, { style: 'currency', currency }).format(value);
  const { patient, clinic } = contents;
  const address = [patient.address_street, [patient.address_zip, patient.address_city].filter(Boolean).join(' '), patient.address_country]
    .filter((part) => typeof part === 'string' && part !== '')
    .join(', ');
  // A date of birth is a calendar date, in no zone: written as the day it names wherever the clinic is.
  const calendarDate = new Intl.DateTimeFormat(locale, { dateStyle: 'medium', timeZone: 'UTC' });
  const born = typeof patient.date_of_birth === 'string' ? calendarDate.format(new Date(`${patient.date_of_birth}T00:00:00Z`)) : '';
  const name = `${patient.first_name} ${patient.last_name}`;
  const sections = [
    `<h2>${escape(words.record)}</h2>`,
    table(
      words,
      null,
      [
        [words.number, patient.patient_number],
        [words.name, name],
        [words.born, born],
        [words.email, patient.email],
        [words.mobile, patient.mobile],
        [words.phone, patient.phone],
        [words.address, address],
      ].filter(([, value]) => typeof value === 'string' && value !== ''),
    ),
    `<h2>${escape(words.appointments)} (${contents.appointments.length})</h2>`,
    table(
      words,
      [words.when, words.what, words.status],
      contents.appointments.map((a) => [at(a.start_at), a.service_name ?? a.title ?? '', a.status]),
    ),
    `<h2>${escape(words.money)} (${contents.invoices.length})</h2>`,
    table(
      words,
      [words.invoice, words.issued, words.total, words.paid, words.balance, words.status],
      contents.invoices.map((i) => [
        i.invoice_number,
        day(i.issued_at),
        amount(i.total, i.currency),
        amount(i.amount_paid, i.currency),
        amount(i.balance, i.currency),
        i.status,
      ]),
    ),
    `<h2>${escape(words.documents)} (${contents.documents.length})</h2>`,
    table(
      words,
      [words.stored, words.title_, words.file],
      contents.documents.map((d) => [at(d.created_at), d.title, `${d.filename} (${Math.max(1, Math.round(d.size / 1024))} KB)`]),
    ),
    `<h2>${escape(words.reminders)} (${contents.reminders.length})</h2>`,
    table(
      words,
      [words.due, words.channel, words.state],
      contents.reminders.map((r) => [at(r.due_at), r.channel ?? '', r.state]),
    ),
    `<h2>${escape(words.recipients)}</h2>`,
    `<h3>${escape(words.keys)}</h3>`,
    table(
      words,
      [words.name, words.from, words.to, words.count],
      contents.recipients.api_keys.map((k) => [k.name, at(k.first_at), at(k.last_at), k.events]),
    ),
    `<h3>${escape(words.webhooks)}</h3>`,
    table(
      words,
      [words.name, 'Host', words.from, words.to, words.count],
      contents.recipients.webhooks.map((w) => [w.name, w.host ?? '', at(w.first_at), at(w.last_at), w.events]),
    ),
    `<h3>${escape(words.messages)}</h3>`,
    table(
      words,
      [words.channel, 'Host', words.from, words.to, words.count],
      contents.recipients.messages.map((m) => [m.channel, m.via ?? '', at(m.first_at), at(m.last_at), m.count]),
    ),
    `<h2>${escape(words.retention)}</h2>`,
    clinic.retention === null
      ? `<p>${escape(words.noRetention)}</p>`
      : table(
          words,
          [words.rule, words.covers, words.years, words.reference],
          clinic.retention.rules.map((rule) => [rule.id, rule.covers, rule.years ?? '', rule.reference]),
        ),
  ];
  const heading = clinic.name === null ? words.titleAlone : `${words.title} ${clinic.name}`;
  return (
    `<!DOCTYPE html>\n<html lang="${language}"><head><meta charset="utf-8"><title>${escape(heading)}: ${escape(name)}</title>` +
    `<style>${STYLE}</style></head><body><h1>${escape(heading)}</h1><p>${escape(words.intro)}</p>` +
    `<p>${escape(words.made)}: ${escape(at(contents.createdAt))}</p>${sections.join('\n')}</body></html>\n`
  );
}
