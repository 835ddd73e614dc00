/** lib/journal/values.ts: the one reading of "a string / number / object field" for the core and the views. */
import { describe, expect, it } from "vitest";
import { str as importerStr } from "@/lib/importers/json-utils";
import { nonEmptyStr, num, obj, str } from "@/lib/journal/values";

describe("reading event fields", () => {
  it("str takes strings only, the empty one included; the importers' str treats empty as missing", () => {
    expect([str("a"), str(""), str(1), str(null), str(undefined)]).toEqual(["a", "", undefined, undefined, undefined]);
    expect([nonEmptyStr("a"), nonEmptyStr(""), nonEmptyStr(0)]).toEqual(["a", undefined, undefined]);
    expect(importerStr("")).toBeUndefined();
    expect(importerStr("x")).toBe("x");
  });

  it("num takes finite numbers: not NaN, infinities, bigints or numeric strings", () => {
    expect([num(1.5), num(-0), num(NaN), num(Infinity), num(10n), num("1")]).toEqual([1.5, -0, undefined, undefined, undefined, undefined]);
  });

  it("obj takes plain objects: not null, arrays or scalars", () => {
    const o = { a: 1 };
    expect(obj(o)).toBe(o);
    expect([obj(null), obj([1]), obj("x"), obj(undefined)]).toEqual([undefined, undefined, undefined, undefined]);
  });
});
