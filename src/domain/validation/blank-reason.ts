import type { ValidationIssue } from '../../errors.js';
import { problems } from './problems.js';
import { isPlainObject } from './structs.js';
import { issue } from './validate.js';

/** A reason of white space only says nothing: 422 value_error at ["body","reason"], as a 1.2.0 reason must. */
export function blankReasonIssues(body: unknown, fieldIssues: readonly ValidationIssue[]): ValidationIssue[] {
  if (!isPlainObject(body) || typeof body.reason !== 'string' || body.reason.trim() !== '') return [];
  if (fieldIssues.some((found) => found.loc[0] === 'body' && found.loc[1] === 'reason')) return [];
  return [issue(['body', 'reason'], problems.valueError('the reason must say something, not only spaces'), body.reason)];
}
