/**
 * Where JSON text stops being JSON: the offset of the first character JSON.parse cannot
 * accept, or null when it parses. V8's messages carry a position for some mistakes only
 * ("Unexpected token 'o', …" and "Unexpected end of JSON input" have none), so a person
 * told "not JSON" about a policy file gets its line and column from here. Iterative (an
 * explicit stack): deep nesting cannot overflow the call stack.
 */
const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const ESCAPES = new Set(['"', "\\", "/", "b", "f", "n", "r", "t"]);

export function jsonErrorOffset(text: string): number | null {
  const n = text.length;
  let i = 0;
  const stack: Array<"{" | "["> = [];
  const ws = () => {
    while (i < n && (text[i] === " " || text[i] === "\t" || text[i] === "\n" || text[i] === "\r")) i++;
  };
  /** At a '"': past the string's closing quote, or false with `i` at the offending character. */
  const string = (): boolean => {
    i++;
    while (i < n) {
      const c = text.charCodeAt(i);
      if (c === 0x22) {
        i++;
        return true;
      }
      if (c < 0x20) return false;
      if (c === 0x5c) {
        const e = text[i + 1];
        if (e === "u") {
          if (!/^[0-9a-fA-F]{4}$/.test(text.slice(i + 2, i + 6))) return false;
          i += 6;
          continue;
        }
        if (e === undefined || !ESCAPES.has(e)) return false;
        i += 2;
        continue;
      }
      i++;
    }
    return false;
  };
  /** A string, number, true, false or null at `i`. */
  const scalar = (): boolean => {
    if (text[i] === '"') return string();
    for (const word of ["true", "false", "null"])
      if (text.startsWith(word, i)) {
        i += word.length;
        return true;
      }
    NUMBER.lastIndex = i;
    if (!NUMBER.exec(text)) return false;
    i = NUMBER.lastIndex;
    return true;
  };
  /** At an object's key: past its ':', or false. */
  const key = (): boolean => {
    ws();
    if (text[i] !== '"' || !string()) return false;
    ws();
    if (text[i] !== ":") return false;
    i++;
    return true;
  };
  value: for (;;) {
    ws();
    if (i >= n) return i;
    const c = text[i];
    if (c === "{" || c === "[") {
      i++;
      ws();
      if (text[i] === (c === "{" ? "}" : "]")) i++;
      else {
        stack.push(c);
        if (c === "{" && !key()) return i;
        continue value;
      }
    } else if (!scalar()) return i;
    // after a value: close what it ends, or go on to the next one
    for (;;) {
      ws();
      const top = stack.at(-1);
      if (top === undefined) return i < n ? i : null;
      if (i >= n) return i;
      const d = text[i];
      if (d === ",") {
        i++;
        if (top === "{" && !key()) return i;
        continue value;
      }
      if (d !== (top === "{" ? "}" : "]")) return i;
      i++;
      stack.pop();
    }
  }
}
