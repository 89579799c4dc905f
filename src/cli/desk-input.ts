import { ValidationError, type ValidationIssue } from '../errors.js';
import { problems } from '../domain/validation/problems.js';
import { issue } from '../domain/validation/validate.js';

/** The usual ways the desk writes a date, for the hint of a refusal (one line, as issue 28 made it). */
export const DESK_DATE_HINT = '30.11.2026, 2026-11-30, today or tomorrow';

/** How the desk may write a date, for help texts (read by src/domain/desk/desk-date.ts). */
export const DESK_DATE_FORMS = `${DESK_DATE_HINT} (also 30.11.26, Mo 30.11.2026, yesterday)`;

/** The usual ways the desk writes a date and time, for the hint of a refusal. */
export const DESK_DATE_TIME_HINT = '"30.11.2026 10:00", "tomorrow 9:30" or 2026-11-30T10:00';

/** How the desk may write a date and time, for help texts. */
export const DESK_DATE_TIME_FORMS = `${DESK_DATE_TIME_HINT} (also "Mo 30.11.26 10:00")`;

/** How the desk may write an amount, for help texts. */
export const DESK_AMOUNT_FORMS = '85.50 or 85,50; with thousands 1.234,50';

/** `85,50`, `-3,5`: a decimal comma, as a German desk writes an amount. */
const DECIMAL_COMMA = /^([+-]?\d+),(\d+)$/;
/** `1.234,50`, `12.345.678,00`: dots between thousands and a decimal comma. */
const GERMAN_THOUSANDS = /^([+-]?\d{1,3}(?:\.\d{3})+),(\d+)$/;
/** `1.234`, `1,234`, `1,234.50`, `1.234.567`: a thousands mark that one desk reads as the other's decimal mark. */
const AMBIGUOUS = /^[+-]?[1-9]\d{0,2}(?:(?:\.\d{3})+|(?:,\d{3})+(?:\.\d+)?)$/;

/**
 * An amount as the desk types it, as the API's decimal text: `85,50` → `85.50`, `1.234,50` →
 * `1234.50`; `85.50` and anything else is passed on unchanged, for the use case to read or refuse
 * as the API would. A thousands mark without a decimal comma (`1.234`, `1,234.50`) is refused at
 * `loc`: read one way it is a thousand times the other, so the desk asks instead of guessing.
 */
export function deskAmountText(text: string, loc: ValidationIssue['loc']): string {
  const trimmed = text.trim();
  const german = GERMAN_THOUSANDS.exec(trimmed);
  if (german) return `${german[1]!.replaceAll('.', '')}.${german[2]!}`;
  if (AMBIGUOUS.test(trimmed)) {
    // What it means with its marks read as thousands: `1.234` is 1234, `1,234.50` is 1234.50.
    const [whole, cents = '00'] = trimmed.includes(',') ? trimmed.replaceAll(',', '').split('.') : [trimmed.replaceAll('.', '')];
    const grouped = `${whole!.replace(/\B(?=(\d{3})+$)/g, '.')},${cents}`;
    const said = `${trimmed} could be read with a thousands mark or a decimal mark: for ${whole!}.${cents} write ${whole!}.${cents} or ${grouped}`;
    throw new ValidationError([issue(loc, problems.valueError(said), text)]);
  }
  const comma = DECIMAL_COMMA.exec(trimmed);
  return comma ? `${comma[1]!}.${comma[2]!}` : text;
}

/** Commander's collector of a repeatable option (`--service A --service B`). */
export function collect(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}
