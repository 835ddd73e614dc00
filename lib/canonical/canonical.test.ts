import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import canonicalize from "canonicalize";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parseLine } from "../journal/parse-line";
import { canonicalJson, canonicalJsonOfSorted, sha256Hasher, sha256Hex, useSha256Implementation } from "./index";

const reference = canonicalize as unknown as (v: unknown) => string;

describe("canonicalJson (RFC 8785)", () => {
  it("matches the reference implementation on every example event", () => {
    const dir = path.resolve("tests/fixtures/examples");
    for (const f of fs.readdirSync(dir).filter((x) => x.endsWith(".jsonl"))) {
      for (const line of fs.readFileSync(path.join(dir, f), "utf8").split("\n").filter(Boolean)) {
        const v = JSON.parse(line) as unknown;
        expect(canonicalJson(v)).toBe(reference(v));
      }
    }
  });

  it("matches the reference implementation on random JSON values (seeded)", () => {
    const seed = 20261129;
    console.log(`canonical fuzz seed ${seed}`);
    fc.assert(
      fc.property(fc.jsonValue(), (v) => {
        expect(canonicalJson(v)).toBe(reference(v));
      }),
      { seed, numRuns: 2000 },
    );
  });

  it("takes the JSON.stringify path exactly when the parser found keys in canonical order (seeded)", () => {
    const seed = 20261130;
    let sortedSeen = 0;
    fc.assert(
      // integers beyond 2^53 take the exact path (the reference cannot write bigint)
      fc.property(
        fc.jsonValue().filter((v) => !/\d{16,}|e\+/.test(JSON.stringify(v))),
        fc.boolean(),
        (data, canonicalText) => {
          const event = { run: "r", seq: 1, ts: "2026-11-07T11:00:00Z", type: "x-fuzz", data: { v: data } };
          const text = canonicalText ? reference(event) : JSON.stringify(event);
          const r = parseLine(text);
          expect(r.ok).toBe(true);
          if (!r.ok) return;
          // V8 lists integer-like keys first whatever their order in the text: not this path
          if (canonicalText && !/"\d+":/.test(text)) expect(r.keysSorted).toBe(true);
          if (r.keysSorted) {
            sortedSeen++;
            expect(canonicalJsonOfSorted(r.event)).toBe(reference(r.event));
          }
        },
      ),
      { seed, numRuns: 2000 },
    );
    expect(sortedSeen).toBeGreaterThan(500);
  });

  it("follows the RFC's number and ordering rules", () => {
    expect(canonicalJson({ b: 1, a: [1e21, 1e-7, -0, 0.1 + 0.2], "\u20ac": "x", "\r": 1 })).toBe(
      '{"\\r":1,"a":[1e+21,1e-7,0,0.30000000000000004],"b":1,"€":"x"}',
    );
  });

  it("writes integers beyond 2^53 with their exact digits", () => {
    expect(canonicalJson({ id: 123456789012345678901234567890n })).toBe('{"id":123456789012345678901234567890}');
  });
});

describe("sha256Hex", () => {
  it("gives the digest of the joined text when fed in pieces, portable and native alike", () => {
    const pieces = ["", "a", "bc é", "€😀", "x".repeat(70000), "\n{}"];
    const joined = createHash("sha256").update(pieces.join(""), "utf8").digest("hex");
    const feed = () => {
      const h = sha256Hasher();
      for (const p of pieces) h.update(p);
      return h.hex();
    };
    expect(feed()).toBe(joined);
    useSha256Implementation(
      (t) => createHash("sha256").update(t, "utf8").digest("hex"),
      () => {
        const h = createHash("sha256");
        return { update: (t) => void h.update(t, "utf8"), hex: () => h.digest("hex") };
      },
    );
    expect(feed()).toBe(joined);
  });

  it("gives the same digest with node's native implementation as with the portable one", () => {
    const texts = ["", "abc", "é€😀", "x".repeat(100000)];
    const portable = texts.map(sha256Hex);
    useSha256Implementation((t) => createHash("sha256").update(t, "utf8").digest("hex"));
    expect(texts.map(sha256Hex)).toEqual(portable);
    expect(portable[1]).toBe("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  });
});
