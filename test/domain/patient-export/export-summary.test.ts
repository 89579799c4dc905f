import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { bookAppointment } from '../../../src/domain/appointments/book-appointment.js';
import { createInvoice } from '../../../src/domain/invoices/create-invoice.js';
import { readPatientExport, type PatientExportContents } from '../../../src/domain/patient-export/export-contents.js';
import { exportSummaryHtml } from '../../../src/domain/patient-export/export-summary.js';
import { setClinicRetention } from '../../../src/domain/retention/retention-rules.js';
import { setClinicCountry, setClinicName, setClinicTimeZone } from '../../../src/domain/settings.js';
import { createTestPatient } from '../../helpers/builders.js';
import { useTestDatabase } from '../../helpers/fixtures.js';

// `summary.html` of the patient's copy (clinic-api-1.3.md, "The patient's copy"): one
// self-contained page, German for a clinic in AT or DE, else English, that a patient can read.

const NOW = '2026-11-30T10:00:00.000Z';

describe('exportSummaryHtml', () => {
  const data = useTestDatabase({ each: true });

  /** The copy's contents of a new patient of a clinic in `country`, with `before` done first. */
  function contentsIn(country: string | null, before: (patientId: string) => void = () => {}): PatientExportContents {
    setClinicName(data.db, 'Praxis Dr. Gruber & Partner');
    setClinicTimeZone(data.db, 'Europe/Vienna');
    if (country !== null) setClinicCountry(data.db, country);
    const patient = createTestPatient(data.db, { first_name: 'Lena', last_name: 'Huber', date_of_birth: '1961-07-23' });
    before(patient.id);
    return readPatientExport(data.db, patient.id, NOW);
  }

  it('speaks German for a clinic in Austria or Germany, English elsewhere and while the clinic names no country', () => {
    for (const [country, lang, heading, nothing] of [
      ['AT', 'de', 'Ihre Daten bei Praxis Dr. Gruber &amp; Partner', 'Keine.'],
      ['DE', 'de', 'Ihre Daten bei Praxis Dr. Gruber &amp; Partner', 'Keine.'],
      ['CH', 'en', 'Your data at Praxis Dr. Gruber &amp; Partner', 'None.'],
      [null, 'en', 'Your data at Praxis Dr. Gruber &amp; Partner', 'None.'],
    ] as const) {
      const page = exportSummaryHtml(contentsIn(country));
      assert.ok(page.startsWith(`<!DOCTYPE html>\n<html lang="${lang}">`), `${country}: ${page.slice(0, 40)}`);
      assert.ok(page.includes(`<h1>${heading}</h1>`), `${country}: its heading`);
      assert.ok(page.includes(`<p>${nothing}</p>`), `${country}: an empty section says so`);
    }
  });

  it('is self-contained, and shows stored text as text, never as markup', () => {
    const page = exportSummaryHtml(
      contentsIn('AT', (patientId) =>
        data.db.prepare('UPDATE patients SET last_name = ? WHERE id = ?').run(`<script>alert("x")</script><b>Huber's</b>`, patientId),
      ),
    );
    assert.ok(page.includes('Lena &lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&lt;b&gt;Huber&#39;s&lt;/b&gt;'), 'the name, escaped');
    for (const pattern of [/<script/i, /<b>/, /\shref=/i, /\ssrc=/i, /url\(/i, /<link/i, /<img/i]) {
      assert.doesNotMatch(page, pattern, 'nothing is loaded or run');
    }
  });

  it("shows times in the clinic's zone, on the day clocks go forward too, and money in the invoice's currency", () => {
    const page = exportSummaryHtml(
      contentsIn('AT', (patientId) => {
        bookAppointment(
          data.db,
          { patient_id: patientId, start_at: '2026-03-29T01:30:00Z', end_at: '2026-03-29T02:00:00Z', title: 'Kontrolle' },
          'api',
        );
        createInvoice(data.db, { patient_id: patientId, total: '1234.50', currency: 'CHF' });
      }),
    );
    assert.match(page, /<h2>Termine \(1\)<\/h2>\n<table>.*<td>29\.03\.2026, 03:30<\/td><td>Kontrolle<\/td><td>booked<\/td>/);
    assert.match(page, /<h2>Rechnungen und Zahlungen \(1\)<\/h2>\n<table>.*<td>CHF\s1\.234,50<\/td>/);
    assert.match(page, /<th>Geburtsdatum<\/th><td>23\.07\.1961<\/td>/);
  });

  it('writes the date of birth as the day it is, in a clinic of any zone', () => {
    for (const zone of ['Pacific/Kiritimati', 'Pacific/Auckland', 'Pacific/Pago_Pago']) {
      setClinicTimeZone(data.db, zone);
      const patient = createTestPatient(data.db, { first_name: 'Tama', last_name: 'Rangi', date_of_birth: '1961-07-23' });
      const page = exportSummaryHtml(readPatientExport(data.db, patient.id, NOW));
      assert.match(page, /<th>Date of birth<\/th><td>23 Jul 1961<\/td>/, zone);
    }
  });

  it('says how long the data is kept, or that the clinic has not set it yet', () => {
    assert.match(
      exportSummaryHtml(contentsIn('AT')),
      /<h2>Wie lange Ihre Daten aufbewahrt werden<\/h2>\n<p>Die Praxis hat ihre Aufbewahrungsregeln noch nicht festgelegt\.<\/p>/,
    );
    setClinicRetention(data.db, 'AT', 30);
    const page = exportSummaryHtml(contentsIn('AT'));
    assert.match(page, /<tr><td>AT-RECORDS<\/td><td>[^<]+<\/td><td>30<\/td><td>§ 51 ÄrzteG 1998<\/td><\/tr>/);
    assert.match(page, /<tr><td>AT-BILLING<\/td><td>[^<]+<\/td><td>7<\/td>/);
  });
});
