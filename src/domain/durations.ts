/**
 * Durations as people type them (`24h`, `30m`, `1h30m`, `2d`): whole numbers with units d, h, m,
 * s. One syntax for `serve --backup-every` and `reminders set --before`, and one way to show them.
 */

const UNIT_MS = { d: 86_400_000, h: 3_600_000, m: 60_000, s: 1000 } as const;
type Unit = keyof typeof UNIT_MS;

/** What a malformed duration is told, with examples. */
export const DURATION_FORM = 'a duration such as 24h, 30m, 1h30m or 3s (units d, h, m, s)';

/** The milliseconds of `text` (`1h30m` → 5,400,000), or undefined when it is not a duration. */
export function durationMsOf(text: string): number | undefined {
  if (!/^(\d{1,12}[dhms])+$/.test(text)) return undefined;
  let ms = 0;
  for (const [, amount, unit] of text.matchAll(/(\d+)([dhms])/g)) ms += Number(amount) * UNIT_MS[unit as Unit];
  return ms;
}

/** A duration in its largest units, the larger first: 5,400,000 → `1h30m`, 86,400,000 → `1d`. */
export function durationText(ms: number): string {
  let rest = ms;
  let text = '';
  for (const unit of Object.keys(UNIT_MS) as Unit[]) {
    const amount = Math.floor(rest / UNIT_MS[unit]);
    if (amount > 0) text += `${amount}${unit}`;
    rest -= amount * UNIT_MS[unit];
  }
  return text === '' ? '0s' : text;
}
