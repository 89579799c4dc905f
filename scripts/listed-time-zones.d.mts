/** The JSON scripts/listed-time-zones.mjs prints when run by `runtime`: `{"icu", "tz", "zones"}`. */
export function listedTimeZonesOf(runtime?: string): string;
