/** How the desk may write a date, for help texts (read by src/domain/desk/desk-date.ts). */
export const DESK_DATE_FORMS = '30.11.2026, 2026-11-30, today or tomorrow';

/** How the desk may write a date and time, for help texts. */
export const DESK_DATE_TIME_FORMS = '"30.11.2026 10:00", "tomorrow 9:30" or 2026-11-30T10:00';

/** Commander's collector of a repeatable option (`--service A --service B`). */
export function collect(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}
