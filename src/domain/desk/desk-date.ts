import { ValidationError } from '../errors.js';
import { dateError, formatDate, localDateOf } from '../validation/calendar.js';
import { problems } from '../validation/problems.js';
import { issue } from '../validation/validate.js';

/**
 * The clinic day a desk command asks about, as YYYY-MM-DD: `today` (any case) or absent is
 * today in the clinic's time zone; anything else must be a calendar date, else 422 date_parsing
 * at ["query","date"], which the command line reports as `--date`.
 */
export function deskDate(text: string | undefined, timeZone: string, now: number): string {
  if (text === undefined || text.trim().toLowerCase() === 'today') return formatDate(localDateOf(now, timeZone));
  const error = dateError(text);
  if (error !== undefined) throw new ValidationError([issue(['query', 'date'], problems.dateParsing(error), text)]);
  return text;
}
