import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { answerOf } from '../../../src/domain/reminders/replies.js';
import {
  defaultTemplates,
  parseTemplate,
  renderTemplate,
  TEMPLATE_NAMES,
  type Placeholder,
} from '../../../src/domain/reminders/reminder-templates.js';
import { AppError } from '../../../src/errors.js';

/**
 * The texts of reminders (interface 1.3.0, "Rules and templates"): a template's placeholders,
 * checked when a clinic sets one (SET_REMINDERS, `clinic reminders set`:
 * test/domain/reminders/set-reminders.test.ts) and filled when a reminder goes out
 * (send-reminders.ts fills them with the date and time in clinic time:
 * test/domain/reminders/send-reminders.test.ts), and the defaults in the clinic's language.
 */

/** What a reminder of Lena's appointment at 14:00 on 30 November 2026 is filled with, as the sender fills it. */
const LENA: Readonly<Record<Placeholder, string>> = {
  first_name: 'Lena',
  date: '30.11.2026',
  time: '14:00',
  clinic_name: 'Praxis am Ring',
  doctor: 'Dr. Huber (Psychiatrie)',
  code: 'A-000041',
};

/** The refusal of `template` as the SMS template: its code, status and details. */
function refusalOf(template: string): [string, number, unknown] {
  try {
    parseTemplate(template, 'sms_template');
  } catch (error) {
    assert.ok(error instanceof AppError, String(error));
    return [error.code, error.status, error.details];
  }
  assert.fail(`${template} was taken`);
}

describe('reminder templates', () => {
  it('fills the English SMS a patient reads with their name, the date, the time and the clinic', () => {
    assert.equal(
      renderTemplate(defaultTemplates(null).sms, LENA),
      'Hello Lena, your appointment at Praxis am Ring is on 30.11.2026 at 14:00. Reply C to confirm or X to cancel.',
    );
  });

  it('writes to a patient of a clinic in Austria or Germany in German, and in English anywhere else', () => {
    for (const country of ['AT', 'DE']) {
      assert.equal(
        renderTemplate(defaultTemplates(country).sms, LENA),
        'Hallo Lena, Ihr Termin bei Praxis am Ring ist am 30.11.2026 um 14:00. Antworten Sie C zum Bestätigen oder X zum Absagen.',
        country,
      );
      assert.equal(renderTemplate(defaultTemplates(country).email_subject, LENA), 'Ihr Termin am 30.11.2026 um 14:00 bei Praxis am Ring');
    }
    for (const country of [null, 'CH', 'GB', 'IT'])
      assert.equal(
        renderTemplate(defaultTemplates(country).email_subject, LENA),
        'Your appointment on 30.11.2026 at 14:00 at Praxis am Ring',
      );
  });

  it("never names the doctor or the appointment's code in a default, whoever reads the patient's phone", () => {
    for (const country of [null, 'AT', 'DE', 'GB']) {
      for (const name of TEMPLATE_NAMES) {
        const shown = renderTemplate(defaultTemplates(country)[name], LENA);
        assert.ok(
          !shown.includes('Huber') && !shown.includes('Psychiatrie') && !shown.includes('A-000041'),
          `${country} ${name}: ${shown}`,
        );
      }
    }
  });

  it('tells the patient how to answer: an SMS by C or X, which the reply reader takes; an e-mail by calling', () => {
    for (const country of [null, 'AT']) {
      const sms = renderTemplate(defaultTemplates(country).sms, LENA);
      const [confirm, decline] = [...sms.matchAll(/\b([CX])\b/g)].map((match) => match[1]!);
      assert.deepEqual([confirm, decline, answerOf(confirm!), answerOf(decline!)], ['C', 'X', 'confirm', 'decline'], sms);
    }
    assert.match(
      renderTemplate(defaultTemplates('DE').email, LENA),
      /^Guten Tag Lena,\n\n.*\n\nWenn Sie den Termin nicht wahrnehmen können, rufen Sie uns bitte an\.\n\nMit freundlichen Grüßen\nPraxis am Ring$/s,
    );
    assert.match(
      renderTemplate(defaultTemplates('GB').email, LENA),
      /If you cannot come, please call us\.\n\nKind regards\nPraxis am Ring$/,
    );
  });

  it("fills a clinic's own template: every placeholder, {{ and }} as braces, no doctor as nothing", () => {
    const template = '{{Termin}} {first_name}: {date} {time}, {clinic_name}, {code}{doctor}.';
    assert.equal(renderTemplate(template, LENA), '{Termin} Lena: 30.11.2026 14:00, Praxis am Ring, A-000041Dr. Huber (Psychiatrie).');
    assert.equal(renderTemplate(template, { ...LENA, doctor: '' }), '{Termin} Lena: 30.11.2026 14:00, Praxis am Ring, A-000041.');
  });

  it("takes a patient's name as written, even one that looks like a placeholder", () => {
    assert.equal(renderTemplate('Hallo {first_name}!', { ...LENA, first_name: '{clinic_name} }{' }), 'Hallo {clinic_name} }{!');
  });

  it('refuses a {…} that is no placeholder, naming it and the template (422 TEMPLATE_INVALID)', () => {
    assert.deepEqual(refusalOf('Hallo {vorname}'), ['TEMPLATE_INVALID', 422, { placeholder: '{vorname}', template: 'sms_template' }]);
    assert.deepEqual(refusalOf('{doctor_name}'), ['TEMPLATE_INVALID', 422, { placeholder: '{doctor_name}', template: 'sms_template' }]);
    assert.deepEqual(refusalOf('Hallo {}'), ['TEMPLATE_INVALID', 422, { placeholder: '{}', template: 'sms_template' }]);
    assert.deepEqual(refusalOf('{FIRST_NAME}'), ['TEMPLATE_INVALID', 422, { placeholder: '{FIRST_NAME}', template: 'sms_template' }]);
  });

  it('refuses a brace never closed, quoting up to 40 characters of it, and a } alone', () => {
    assert.deepEqual(refusalOf(`Hallo {first_name ${'x'.repeat(50)}`)[2], {
      placeholder: `{first_name ${'x'.repeat(28)}`,
      template: 'sms_template',
    });
    assert.deepEqual(refusalOf('Bis morgen } Praxis')[2], { placeholder: '}', template: 'sms_template' });
    assert.deepEqual(refusalOf('{{ {time} }}} ')[2], { placeholder: '}', template: 'sms_template' });
  });
});
