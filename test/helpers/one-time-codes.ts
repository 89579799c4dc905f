/** A one-time code (a desk PC's pairing code, a person's setup code) as shown: Crockford base 32, three groups of four. */
export const SHOWN_ONE_TIME_CODE = /^[0-9A-HJKMNP-TV-Z]{4}-[0-9A-HJKMNP-TV-Z]{4}-[0-9A-HJKMNP-TV-Z]{4}$/;
