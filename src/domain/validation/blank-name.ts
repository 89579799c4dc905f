import type { ValidationIssue } from '../../errors.js';
import { problems } from './problems.js';
import { isPlainObject } from './structs.js';
import { issue } from './validate.js';

/** A body's `name` of spaces alone, refused as too short (a person's, a desk PC's): names are stored trimmed. */
export function blankNameIssues(body: unknown, fieldIssues: readonly ValidationIssue[]): ValidationIssue[] {
  const name = isPlainObject(body) ? body.name : undefined;
  if (typeof name !== 'string' || fieldIssues.some((failed) => failed.loc[1] === 'name') || name.trim() !== '') return [];
  return [issue(['body', 'name'], problems.stringTooShort(1), name)];
}
