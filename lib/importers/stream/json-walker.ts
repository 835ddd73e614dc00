/**
 * A streaming JSON reader that materialises only what the caller asks for. Per value, a
 * visitor either walks into it (a `ContainerVisitor` decides what each member means), takes
 * it whole, or lets it be skipped without building anything. So a 50 MB trace export costs
 * the spans being kept, not the document's text plus its parsed tree.
 *
 * The text is scanned here rather than by a general tokenizer: the skeleton around the
 * wanted values (a few arrays and keys) is checked token by token, and each value taken
 * whole is cut out as raw text and parsed by `parseJsonExact`. Taken values are therefore
 * exactly what the whole-document path builds (integers beyond 2^53 as bigint, last of
 * duplicate keys, own `__proto__` keys), and the bulk of the bytes goes through native
 * JSON.parse: @streamparser/json's tokenizer alone took 2.5x JSON.parse's time on the bench file.
 */
import { exactNumber, parseJsonExact } from "../../journal/exact-json";

export type StreamJson = null | boolean | number | bigint | string | StreamJson[] | { [key: string]: StreamJson };

/** What to do with the value found at one position of the document. */
export interface ValueVisitor {
  /** An object or array starts here: walk it with the returned visitor, or return undefined. */
  enter?(kind: "object" | "array"): ContainerVisitor | undefined;
  /** The whole value; called for scalars and for containers `enter` did not take. */
  take?(value: StreamJson): void;
}

export interface ContainerVisitor {
  /** The visitor of the member at `key` (an index in arrays), or undefined to skip it. */
  member(key: string | number): ValueVisitor | undefined;
  /** The container is complete. */
  end?(): void;
}

/** The text is not JSON. `truncated`: it stopped inside a value (cut file, interrupted upload). */
export class JsonSyntaxError extends Error {
  constructor(
    message: string,
    readonly truncated: boolean,
  ) {
    super(message);
  }
}

// parseJsonExact's reading of one number (integers beyond 2^53 become bigint), re-exported for the stream readers
export { exactNumber };

// What the innermost open container accepts next.
const FIRST_KEY_OR_END = 0;
const KEY = 1;
const COLON = 2;
const VALUE = 3;
const FIRST_VALUE_OR_END = 4;
const COMMA_OR_END = 5;

const C_QUOTE = 0x22;
const C_BACKSLASH = 0x5c;
const C_LBRACE = 0x7b;
const C_RBRACE = 0x7d;
const C_LBRACKET = 0x5b;
const C_RBRACKET = 0x5d;
const C_COLON = 0x3a;
const C_COMMA = 0x2c;
const C_MINUS = 0x2d;

const NUMBER = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/;
const LITERALS: Record<number, [string, StreamJson]> = { 0x74: ["true", true], 0x66: ["false", false], 0x6e: ["null", null] };

/** Returned by a token reader when the text read so far ends inside the token. */
const MORE: unique symbol = Symbol("more");

const isSpace = (c: number) => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
const isNumberChar = (c: number) => (c >= 0x30 && c <= 0x39) || c === C_MINUS || c === 0x2b || c === 0x2e || c === 0x65 || c === 0x45;

interface Frame {
  isArray: boolean;
  expect: number;
  key: string | number;
  /** Undefined: the container is skipped (still checked, never built). */
  walk?: ContainerVisitor;
}

/** A container being taken whole: its raw text runs from `start`; scanning resumes at `from`. */
interface Capture {
  start: number;
  from: number;
  depth: number;
  /** Opening quote of the string `from` is inside, or -1. */
  stringStart: number;
  visitor: ValueVisitor;
}

export class JsonWalker {
  /** Text not consumed yet; `base` characters came before it. */
  private buf = "";
  private base = 0;
  private pos = 0;
  private readonly stack: Frame[] = [];
  private capture: Capture | undefined;
  /** Where the search for the end of the string token at `pos` resumes, or -1. */
  private stringFrom = -1;
  private started = false;
  private rootDone = false;

  constructor(private readonly root: ValueVisitor) {}

  /** Feeds the next piece of text (the caller decodes bytes, so pieces may split anywhere). */
  write(text: string): void {
    if (text.length === 0) return;
    const keep = this.capture ? this.capture.start : this.pos;
    if (keep > 0) {
      this.buf = this.buf.slice(keep);
      this.base += keep;
      this.pos -= keep;
      if (this.stringFrom >= 0) this.stringFrom -= keep;
      if (this.capture) {
        this.capture.start -= keep;
        this.capture.from -= keep;
        if (this.capture.stringStart >= 0) this.capture.stringStart -= keep;
      }
    }
    this.buf += text;
    this.run(false);
  }

  /** The text is over: throws `JsonSyntaxError` unless it held exactly one complete value. */
  end(): void {
    this.run(true);
    if (!this.rootDone) {
      if (!this.started) throw new JsonSyntaxError("the text holds no JSON value", false);
      throw this.truncated();
    }
  }

  private truncated(): JsonSyntaxError {
    return new JsonSyntaxError(`the text ends inside an unfinished value (after character ${this.base + this.buf.length})`, true);
  }

  private unexpected(at: number): JsonSyntaxError {
    // One character of structure, never payload text.
    return new JsonSyntaxError(`unexpected ${JSON.stringify(this.buf[at])} at character ${this.base + at}`, false);
  }

  private run(final: boolean): void {
    for (;;) {
      if (this.capture) {
        if (!this.scanCapture(final)) return;
        continue;
      }
      const buf = this.buf;
      let p = this.pos;
      while (p < buf.length && isSpace(buf.charCodeAt(p))) p++;
      this.pos = p;
      if (p >= buf.length) return;
      const c = buf.charCodeAt(p);
      const top = this.stack[this.stack.length - 1];
      if (!top) {
        if (this.rootDone)
          throw new JsonSyntaxError(`unexpected data after the end of the JSON value at character ${this.base + p}`, false);
        if (!this.value(undefined, c, final)) return;
        continue;
      }
      switch (top.expect) {
        case FIRST_KEY_OR_END:
        case KEY:
          if (c === C_QUOTE) {
            const key = this.string(final);
            if (key === MORE) return;
            top.key = key;
            top.expect = COLON;
            continue;
          }
          if (c === C_RBRACE && top.expect === FIRST_KEY_OR_END) {
            this.close();
            continue;
          }
          break;
        case COLON:
          if (c === C_COLON) {
            this.pos++;
            top.expect = VALUE;
            continue;
          }
          break;
        case FIRST_VALUE_OR_END:
        case VALUE:
          if (c === C_RBRACKET && top.expect === FIRST_VALUE_OR_END) {
            this.close();
            continue;
          }
          if (!this.value(top, c, final)) return;
          continue;
        case COMMA_OR_END:
          if (c === C_COMMA) {
            this.pos++;
            if (top.isArray) {
              top.key = (top.key as number) + 1;
              top.expect = VALUE;
            } else {
              top.expect = KEY;
            }
            continue;
          }
          if (c === (top.isArray ? C_RBRACKET : C_RBRACE)) {
            this.close();
            continue;
          }
          break;
      }
      throw this.unexpected(p);
    }
  }

  /** A value starts at `pos` inside `parent` (undefined: the root). False: wait for more text. */
  private value(parent: Frame | undefined, c: number, final: boolean): boolean {
    if (c === C_LBRACE || c === C_LBRACKET) {
      const isArray = c === C_LBRACKET;
      const visitor = parent ? parent.walk?.member(parent.key) : this.root;
      this.started = true;
      if (parent) parent.expect = COMMA_OR_END;
      const walk = visitor?.enter?.(isArray ? "array" : "object");
      if (!walk && visitor?.take) {
        this.capture = { start: this.pos, from: this.pos + 1, depth: 1, stringStart: -1, visitor };
        return true;
      }
      this.pos++;
      this.stack.push({ isArray, expect: isArray ? FIRST_VALUE_OR_END : FIRST_KEY_OR_END, key: isArray ? 0 : "", walk });
      return true;
    }
    // A scalar is read completely before its visitor is asked for, so `member` runs once.
    let value: StreamJson | typeof MORE;
    if (c === C_QUOTE) value = this.string(final);
    else if (c === C_MINUS || (c >= 0x30 && c <= 0x39)) value = this.number(final);
    else if (LITERALS[c]) value = this.literal(final);
    else throw this.unexpected(this.pos);
    if (value === MORE) return false;
    this.started = true;
    if (parent) parent.expect = COMMA_OR_END;
    else this.rootDone = true;
    const visitor = parent ? parent.walk?.member(parent.key) : this.root;
    visitor?.take?.(value);
    return true;
  }

  private string(final: boolean): string | typeof MORE {
    const buf = this.buf;
    const start = this.pos;
    let from = this.stringFrom >= 0 ? this.stringFrom : start + 1;
    for (;;) {
      const q = buf.indexOf('"', from);
      if (q < 0) {
        if (final) throw this.truncated();
        this.stringFrom = buf.length;
        return MORE;
      }
      let b = q - 1;
      while (b > start && buf.charCodeAt(b) === C_BACKSLASH) b--;
      if ((q - 1 - b) % 2 === 1) {
        from = q + 1;
        continue;
      }
      this.stringFrom = -1;
      this.pos = q + 1;
      try {
        // JSON.parse both decodes the escapes and rejects what JSON does not allow.
        return JSON.parse(buf.slice(start, q + 1)) as string;
      } catch {
        throw new JsonSyntaxError(`invalid string at character ${this.base + start}`, false);
      }
    }
  }

  private number(final: boolean): number | bigint | typeof MORE {
    const buf = this.buf;
    let p = this.pos;
    while (p < buf.length && isNumberChar(buf.charCodeAt(p))) p++;
    if (p === buf.length && !final) return MORE;
    const text = buf.slice(this.pos, p);
    if (!NUMBER.test(text)) {
      if (p === buf.length) throw this.truncated();
      throw new JsonSyntaxError(`invalid number at character ${this.base + this.pos}`, false);
    }
    this.pos = p;
    return exactNumber(text);
  }

  private literal(final: boolean): StreamJson | typeof MORE {
    const [word, value] = LITERALS[this.buf.charCodeAt(this.pos)];
    const have = this.buf.slice(this.pos, this.pos + word.length);
    if (have !== word) {
      if (have.length < word.length && word.startsWith(have)) {
        if (final) throw this.truncated();
        return MORE;
      }
      throw new JsonSyntaxError(`invalid literal at character ${this.base + this.pos}`, false);
    }
    this.pos += word.length;
    return value;
  }

  /**
   * Finds the end of the container being taken (brackets outside strings), then parses its
   * text. What lies inside is checked by the parser, not here. False: wait for more text.
   */
  private scanCapture(final: boolean): boolean {
    const cap = this.capture as Capture;
    const buf = this.buf;
    const n = buf.length;
    let p = cap.from;
    let depth = cap.depth;
    let stringStart = cap.stringStart;
    for (;;) {
      if (stringStart >= 0) {
        // Long strings (prompts, documents) are skipped by indexOf, not char by char.
        const q = buf.indexOf('"', p);
        if (q < 0) {
          p = n;
          break;
        }
        let b = q - 1;
        while (b > stringStart && buf.charCodeAt(b) === C_BACKSLASH) b--;
        p = q + 1;
        if ((q - 1 - b) % 2 === 0) stringStart = -1;
        continue;
      }
      if (p >= n) break;
      const c = buf.charCodeAt(p);
      if (c === C_QUOTE) stringStart = p;
      else if (c === C_LBRACE || c === C_LBRACKET) depth++;
      else if ((c === C_RBRACE || c === C_RBRACKET) && --depth === 0) {
        const start = cap.start;
        this.capture = undefined;
        this.pos = p + 1;
        let value: StreamJson;
        try {
          value = parseJsonExact(buf.slice(start, p + 1)) as StreamJson;
        } catch (e) {
          // The parser's message quotes the text, which may hold a secret: only its position is kept.
          const at = e instanceof Error ? /position (\d+)/.exec(e.message) : null;
          throw new JsonSyntaxError(`invalid JSON at character ${this.base + start + (at ? Number(at[1]) : 0)}`, false);
        }
        if (this.stack.length === 0) this.rootDone = true;
        cap.visitor.take?.(value);
        return true;
      }
      p++;
    }
    if (final) throw this.truncated();
    cap.from = p;
    cap.depth = depth;
    cap.stringStart = stringStart;
    return false;
  }

  private close(): void {
    this.pos++;
    const frame = this.stack.pop() as Frame;
    if (this.stack.length === 0) this.rootDone = true;
    frame.walk?.end?.();
  }
}

/** A visitor for arrays whose every element means the same thing. */
export function eachElement(element: ValueVisitor): ContainerVisitor {
  return { member: () => element };
}
