/** The longest media type a document may be stored with (the value as sent, parameters included). */
export const MEDIA_TYPE_MAX_LENGTH = 255;

/** The fallback for a stored type that cannot be served as it is, and the CLI's default. */
export const OCTET_STREAM = 'application/octet-stream';

const TOKEN = "[!#$%&'*+.^_`|~0-9A-Za-z-]+";
// RFC 9110 §5.6.4: a quoted-string of visible characters, spaces, tabs and obs-text, with escapes.
const QUOTED_STRING = '"(?:[\\t \\x21\\x23-\\x5b\\x5d-\\x7e\\x80-\\xff]|\\\\[\\t \\x21-\\x7e\\x80-\\xff])*"';
// RFC 9110 §8.3.1: media-type = type "/" subtype parameters; parameters = *( OWS ";" OWS [ parameter ] ).
// The whitespace after a `;` belongs to the parameter that follows it, never to the next `;`:
// written as the RFC has it, a space could be matched by either, and a value of 118 `; ` before a
// stray character took 2^118 tries to refuse (it held the server's one thread).
const MEDIA_TYPE = new RegExp(`^(${TOKEN})/(${TOKEN})(?:[ \\t]*;(?:[ \\t]*${TOKEN}=(?:${TOKEN}|${QUOTED_STRING}))?)*[ \\t]*$`);

/**
 * The media type a document is stored and served with, from what its sender declared: the
 * `type/subtype` of a valid RFC 9110 media type of at most MEDIA_TYPE_MAX_LENGTH characters, in
 * lower case, its parameters dropped (as busboy reports a part's type); undefined for anything
 * else. One rule for the upload form and `clinic upload-document --content-type`, so that every
 * stored value can be sent back as a Content-Type header.
 */
export function documentMediaType(declared: string): string | undefined {
  if (declared.length > MEDIA_TYPE_MAX_LENGTH) return undefined;
  // Whitespace around a field value is not part of it (RFC 9110 §5.5).
  const match = MEDIA_TYPE.exec(declared.replace(/^[ \t]+|[ \t]+$/g, ''));
  return match ? `${match[1]}/${match[2]}`.toLowerCase() : undefined;
}

/** What a person is told when documentMediaType refuses a value. */
export const MEDIA_TYPE_RULE = `a media type such as application/pdf (type/subtype, optional ;parameters), at most ${MEDIA_TYPE_MAX_LENGTH} characters`;
