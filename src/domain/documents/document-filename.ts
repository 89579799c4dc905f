/** The name a document gets when the client's name leaves nothing usable. */
const DEFAULT_DOCUMENT_FILENAME = 'document';

/** Longest name kept, in code points; longer names are shortened before their extension. */
const MAX_FILENAME_LENGTH = 255;

/**
 * Control characters (C0, DEL, C1) and the invisible bidirectional controls that can make
 * `invoice\u202Efdp.exe` display as `invoiceexe.pdf`.
 */
const UNWANTED = /[\p{Cc}\u200E\u200F\u202A-\u202E\u2066-\u2069\u061C]/gu;

/**
 * The client's file name as shown to people (decisions.md §6): reduced to its base name whichever
 * separator the client's system uses (`../../x` → `x`, `C:\x\y.pdf` → `y.pdf`), control characters
 * removed, surrounding spaces trimmed, at most 255 characters; `document` when nothing is left
 * (or only `.` or `..`). It is only ever a label: files are stored under their id.
 */
export function documentFilename(clientName: string | undefined): string {
  const base = (clientName ?? '').split(/[\\/]/).pop() ?? '';
  const cleaned = base.replace(UNWANTED, '').trim();
  if (cleaned === '' || cleaned === '.' || cleaned === '..') return DEFAULT_DOCUMENT_FILENAME;
  const characters = [...cleaned];
  if (characters.length <= MAX_FILENAME_LENGTH) return cleaned;
  const dot = cleaned.lastIndexOf('.');
  const extension = dot > 0 ? [...cleaned.slice(dot)] : [];
  const keep = extension.length > 0 && extension.length <= 16 ? extension : [];
  return characters.slice(0, MAX_FILENAME_LENGTH - keep.length).join('') + keep.join('');
}
