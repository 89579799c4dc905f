import { errors } from '../../errors.js';

/**
 * The texts of reminders (interface 1.3.0, "Rules and templates"): templates with placeholders,
 * checked when set and rendered when a reminder is planned, previewed or sent. A doctor or a
 * service is never in a default: either can reveal a diagnosis to whoever reads the patient's
 * phone. `{doctor}` exists for a clinic that chooses to name one.
 */

/** The placeholders a template may hold, in the order the help names them. */
export const PLACEHOLDERS = ['first_name', 'date', 'time', 'clinic_name', 'doctor', 'code'] as const;
export type Placeholder = (typeof PLACEHOLDERS)[number];

/** The three templates, by the name `reminders show --json` gives them. */
export const TEMPLATE_NAMES = ['sms', 'email_subject', 'email'] as const;
export type TemplateName = (typeof TEMPLATE_NAMES)[number];
export type Templates = Record<TemplateName, string>;

/** A template cut into its literal text and its placeholders. */
type Piece = { text: string } | { placeholder: Placeholder };

const isPlaceholder = (name: string): name is Placeholder => (PLACEHOLDERS as readonly string[]).includes(name);

/**
 * The pieces of `template`, or 422 TEMPLATE_INVALID naming the first `{…}` that is no placeholder
 * (an unknown name, a `{` never closed, a `}` alone). `{{` and `}}` are a brace each. `field` is
 * the request field the template came in, for the refusal.
 */
export function parseTemplate(template: string, field: string): Piece[] {
  const pieces: Piece[] = [];
  let text = '';
  for (let at = 0; at < template.length;) {
    const pair = template.slice(at, at + 2);
    if (pair === '{{' || pair === '}}') {
      text += pair[0];
      at += 2;
      continue;
    }
    const char = template[at]!;
    if (char === '}') throw errors.templateInvalid('}', field, PLACEHOLDERS);
    if (char !== '{') {
      text += char;
      at += 1;
      continue;
    }
    const end = template.indexOf('}', at);
    const written = end === -1 ? template.slice(at, at + 40) : template.slice(at, end + 1);
    const name = written.slice(1, -1);
    if (end === -1 || !isPlaceholder(name)) throw errors.templateInvalid(written, field, PLACEHOLDERS);
    if (text !== '') pieces.push({ text });
    text = '';
    pieces.push({ placeholder: name });
    at = end + 1;
  }
  if (text !== '') pieces.push({ text });
  return pieces;
}

/** A template with its placeholders filled from `values` (checked by parseTemplate when it was set). */
export function renderTemplate(template: string, values: Readonly<Record<Placeholder, string>>): string {
  return parseTemplate(template, 'template')
    .map((piece) => ('text' in piece ? piece.text : values[piece.placeholder]))
    .join('');
}

/**
 * The templates a clinic has until it writes its own: German where the clinic's country is AT or
 * DE, else English. Each says who, when and where, and how to answer (SMS: C or X, which the
 * reply polling reads; e-mail: a call, since no mailbox is read).
 */
const DEFAULT_TEMPLATES: Readonly<Record<'de' | 'en', Templates>> = {
  de: {
    sms: 'Hallo {first_name}, Ihr Termin bei {clinic_name} ist am {date} um {time}. Antworten Sie C zum Bestätigen oder X zum Absagen.',
    email_subject: 'Ihr Termin am {date} um {time} bei {clinic_name}',
    email:
      'Guten Tag {first_name},\n\nwir erinnern Sie an Ihren Termin bei {clinic_name} am {date} um {time}.\n\n' +
      'Wenn Sie den Termin nicht wahrnehmen können, rufen Sie uns bitte an.\n\nMit freundlichen Grüßen\n{clinic_name}',
  },
  en: {
    sms: 'Hello {first_name}, your appointment at {clinic_name} is on {date} at {time}. Reply C to confirm or X to cancel.',
    email_subject: 'Your appointment on {date} at {time} at {clinic_name}',
    email:
      'Dear {first_name},\n\nthis is a reminder of your appointment at {clinic_name} on {date} at {time}.\n\n' +
      'If you cannot come, please call us.\n\nKind regards\n{clinic_name}',
  },
};

/** The default templates for the clinic's country (null: not set, English). */
export const defaultTemplates = (country: string | null): Templates =>
  DEFAULT_TEMPLATES[country === 'AT' || country === 'DE' ? 'de' : 'en'];
