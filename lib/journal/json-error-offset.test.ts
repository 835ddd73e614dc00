import { describe, expect, it } from "vitest";
import { jsonErrorOffset } from "./json-error-offset";

describe("jsonErrorOffset", () => {
  it("is null exactly when JSON.parse accepts the text", () => {
    const texts = [
      '{"a": [1, -2.5e3, true, false, null, "x\\u00e9\\n"], "b": {}, "c": []}',
      " [ ] ",
      '"s"',
      "0",
      "",
      "{",
      "[1,]",
      '{"a":1,}',
      "01",
      "1.",
      '"\\x"',
      '"\\u12g4"',
      '"a\tb"',
      "[1] 2",
      "tru",
      "{'a': 1}",
      "[[[[[[[[[[]]]]]]]]]",
      "[".repeat(100_000),
    ];
    for (const t of texts) {
      let parses = true;
      try {
        JSON.parse(t);
      } catch {
        parses = false;
      }
      expect(jsonErrorOffset(t) === null, t.slice(0, 40)).toBe(parses);
    }
  });

  it("points at the first character that cannot be JSON, where V8 says no position", () => {
    const text = '{\n  "invariants": [\n    oops\n  ]\n}';
    expect(jsonErrorOffset(text)).toBe(text.indexOf("oops"));
    expect(jsonErrorOffset('{"a": tru}')).toBe(6);
    expect(jsonErrorOffset('{"a": 1')).toBe(7);
    expect(jsonErrorOffset('{"a": 1,}')).toBe(8);
    expect(jsonErrorOffset("[1 2]")).toBe(3);
    expect(jsonErrorOffset('["a\nb"]')).toBe(3);
    expect(jsonErrorOffset("")).toBe(0);
  });
});
