/**
 * Where JSON text stops being JSON: the index of the first character a JSON parser cannot take
 * (the text's length when it ends too early). JSON.parse says only in its message, and V8's
 * messages name no position for many errors (`{"a":}`), so the body reader asks this scanner
 * once JSON.parse has refused the text. Iterative, so deep nesting cannot overflow the stack.
 */
export function jsonErrorPosition(text: string): number {
  let i = 0;
  const skipSpace = () => {
    while (i < text.length && ' \t\n\r'.includes(text[i]!)) i++;
  };
  const literal = (word: string) => {
    if (text.startsWith(word, i)) {
      i += word.length;
      return true;
    }
    // The first character that differs.
    for (let k = 0; i < text.length && text[i] === word[k]; k++) i++;
    return false;
  };
  const string = () => {
    i++; // the opening quote
    while (i < text.length) {
      const c = text.charCodeAt(i);
      if (c === 0x22) return (++i, true);
      if (c < 0x20) return false;
      if (c === 0x5c) {
        const escape = text[i + 1];
        if (escape === 'u') {
          if (!/^[0-9a-fA-F]{4}$/.test(text.slice(i + 2, i + 6))) return ((i += 2), false);
          i += 6;
        } else if (escape !== undefined && '"\\/bfnrt'.includes(escape)) i += 2;
        else return (++i, false);
      } else i++;
    }
    return false;
  };
  const number = () => {
    const match = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/.exec(text.slice(i, i + 400));
    if (!match) return false;
    i += match[0].length;
    return true;
  };
  const value = (): boolean => {
    const c = text[i];
    if (c === '"') return string();
    if (c === 't') return literal('true');
    if (c === 'f') return literal('false');
    if (c === 'n') return literal('null');
    if (c === '-' || (c !== undefined && c >= '0' && c <= '9')) return number();
    return false;
  };
  /** An object member's `"name":` and the space after it; false where it is not one. */
  const memberName = (): boolean => {
    if (text[i] !== '"' || !string()) return false;
    skipSpace();
    if (text[i] !== ':') return false;
    i++;
    skipSpace();
    return true;
  };
  // The containers still open, innermost last: '{' or '['.
  const open: string[] = [];
  skipSpace();
  for (;;) {
    const c = text[i];
    if (c === '{' || c === '[') {
      open.push(c);
      i++;
      skipSpace();
      if (text[i] === (c === '{' ? '}' : ']')) {
        open.pop();
        i++;
      } else if (c === '[' || memberName()) continue;
      else return i;
    } else if (!value()) return i;
    // After a value: close containers, or go on to the next member or item.
    for (;;) {
      skipSpace();
      const container = open.at(-1);
      if (container === undefined) return i < text.length ? i : text.length;
      const closer = container === '{' ? '}' : ']';
      if (text[i] === closer) {
        open.pop();
        i++;
        continue;
      }
      if (text[i] !== ',') return i;
      i++;
      skipSpace();
      if (container === '{' && !memberName()) return i;
      break;
    }
  }
}
