/** Diffs as text: what a reviewer reads for changed args, results and states. */
import { describe, expect, it } from "vitest";
import { diffLineText, jsonDiff, jsonText } from "../../lib/compare";

const text = (a: unknown, b: unknown) => jsonDiff(a, b).map(diffLineText);

describe("jsonDiff", () => {
  it("is empty for equal values", () => {
    expect(text({ a: [1, { b: 2 }] }, { a: [1, { b: 2 }] })).toEqual([]);
  });

  it("names replaced, added and removed fields by JSON Pointer with old and new values", () => {
    expect(
      text({ args: { amountCents: 4599, currency: "usd" }, error: "boom" }, { args: { amountCents: 2000, currency: "usd", note: "x" } }),
    ).toEqual(["~ /args/amountCents: 4599 → 2000", '+ /args/note: "x"', '- /error: "boom"']);
  });

  it("diffs arrays of objects by id: a removed item by its old index, an added one by its new index", () => {
    const before = {
      charges: [
        { id: "c1", cents: 1 },
        { id: "c2", cents: 2 },
      ],
    };
    const after = {
      charges: [
        { id: "c2", cents: 2 },
        { id: "c3", cents: 3 },
      ],
    };
    expect(text(before, after)).toEqual(['- /charges/0: {"id":"c1","cents":1}', '+ /charges/1: {"id":"c3","cents":3}']);
  });

  it("escapes / and ~ in keys, and never returns markup as anything but text", () => {
    expect(text({ "a/b~c": 1 }, { "a/b~c": 2 })).toEqual(["~ /a~1b~0c: 1 → 2"]);
    expect(text({ x: "<b>" }, { x: "<script>alert(1)</script>" })).toEqual(['~ /x: "<b>" → "<script>alert(1)</script>"']);
  });

  it("diffs a whole value replaced by another type at the root", () => {
    expect(text({ a: 1 }, [1])).toEqual(['~ /: {"a":1} → [1]']);
  });

  it("cuts long values and writes a bigint as a string of its exact digits", () => {
    expect(jsonText("x".repeat(500), 10)).toBe(`"xxxxxxxxx… (492 more characters)`);
    expect(jsonText({ n: 12345678901234567890n })).toBe('{"n":"12345678901234567890"}');
  });
});
