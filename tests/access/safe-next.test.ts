import { describe, expect, it } from "vitest";
import { safeNext } from "@/lib/access/safe-next";

const ORIGIN = "http://127.0.0.1:3000";

/** Where a browser at ORIGIN goes when told `Location: value` (WHATWG URL, like Chromium). */
const landsOn = (value: string) => new URL(value, ORIGIN);

// what a probe, or anyone crafting a sign-in link, may put in `next`
const HOSTILE = [
  "/\t/evil.example",
  "/\n/evil.example",
  "/\r\n/evil.example",
  "\t//evil.example",
  "//evil.example",
  "///evil.example",
  "/\\evil.example",
  "\\/evil.example",
  "\\\\evil.example",
  "/\\/evil.example",
  "https://evil.example",
  "http://evil.example/",
  "HTTPS://evil.example",
  "/%09/evil.example",
  "/%0a/evil.example",
  "/%0D%0A/evil.example",
  "/%5Cevil.example",
  "%2F%2Fevil.example",
  "/%2F/evil.example",
  "/%2f%2fevil.example",
  "%5C%5Cevil.example",
  "/%E0%A4%A", // not percent-decodable
  "javascript:alert(1)",
  "JaVaScRiPt:alert(1)",
  " javascript:alert(1)",
  "data:text/html,<script>alert(1)</script>",
  "/\u0000/evil.example",
  "/\u007f/evil.example",
  "/\u0085/evil.example",
  "evil.example",
  "runs/r1",
  "",
];

describe("safeNext: a sign-in goes back to a path of this server, nowhere else", () => {
  it.each(HOSTILE)("refuses %j (answers /)", (value) => {
    expect(safeNext(value)).toBe("/");
    expect(safeNext(value, ORIGIN)).toBe("/");
  });

  it("refuses what is not one string", () => {
    expect(safeNext(undefined)).toBe("/");
    expect(safeNext(["/runs", "//evil.example"])).toBe("/");
    expect(safeNext("/" + "a".repeat(2001))).toBe("/");
  });

  it("the hostile values really lead off-site when passed through unchecked", () => {
    // the table is worth its keep: the browser takes most of these elsewhere
    const offSite = HOSTILE.filter((v) => {
      try {
        return landsOn(v).origin !== ORIGIN;
      } catch {
        return false;
      }
    });
    expect(offSite).toEqual(expect.arrayContaining(["/\t/evil.example", "/\\evil.example", "\\/evil.example", "//evil.example"]));
  });

  it.each([
    ["/", "/"],
    ["/runs/r1", "/runs/r1"],
    ["/runs/r1?step=3#e7", "/runs/r1?step=3#e7"],
    ["/admin/executors", "/admin/executors"],
    ["/runs/a%20b", "/runs/a%20b"],
    ["/compare?a=r1&b=r2", "/compare?a=r1&b=r2"],
  ])("keeps the path %j", (value, kept) => {
    expect(safeNext(value)).toBe(kept);
    expect(landsOn(safeNext(value, ORIGIN)).origin).toBe(ORIGIN);
  });

  it("normalizes dot segments, staying on this server", () => {
    expect(safeNext("/runs/../admin")).toBe("/admin");
    expect(safeNext("/./runs")).toBe("/runs");
  });
});
