/**
 * A journal line that gives one key twice in an object is refused with its line number:
 * JSON.parse keeps the last silently, so `"seq":1,…,"seq":2` or a doubled `tool` would store
 * something other than what a reader of the line sees first. Lines whose strings hold
 * colons and quotes in every position (the fast count's hard cases) are not refused.
 */
import { describe, expect, it } from "vitest";
import { readJournalText } from "./reader";

const ts = "2026-11-07T11:00:01.026Z";
const event = (seq: number, data: string) => `{"run":"r1","seq":${seq},"ts":"${ts}","type":"x-test","data":${data}}`;

/** Mulberry32: a small seeded generator, so a failure names its seed. */
function rng(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe("duplicate keys in a journal line", () => {
  it("refuses a key given twice, at any depth, naming the line", async () => {
    const text = [
      event(0, `{"text":"fine"}`),
      event(1, `{"text":"a","text":"b"}`),
      `{"run":"r1","seq":2,"seq":3,"ts":"${ts}","type":"note","data":{}}`,
      event(4, `{"list":[{"k":1,"k" : 2}]}`),
      event(5, `{"text":"ok"}`),
    ].join("\n");
    const { events, errors } = await readJournalText(text);
    expect(events.map((e) => e.seq)).toEqual([0, 5]);
    expect(errors.map((e) => [e.line, e.message.replace(/ \(the second at character \d+ of the line\)$/, "")])).toEqual([
      [2, "an object has the same key twice"],
      [3, "an object has the same key twice"],
      [4, "an object has the same key twice"],
    ]);
    // where: the character of the second `"text"` key on line 2
    expect(errors[0].message).toContain(`character ${event(1, `{"text":"a",`).length + 1}`);
  });

  it("takes strings that begin with a colon, escaped quotes before colons and keys with colons", async () => {
    const data = [
      `{"a":":"}`,
      `{"a":" :x","b":["::1",":",":"]}`,
      `{"a":"\\":","b":"\\\\","c":"x"}`,
      `{"a:b":1,"a":{"a:b":2}}`,
      `{"url":"http://h:1/p?q=a:b","t":"10:00"}`,
      `{"k" : "v" , "k2"  :  ":" }`,
    ];
    const { events, errors } = await readJournalText(data.map((d, i) => event(i, d)).join("\n"));
    expect(errors).toEqual([]);
    expect(events).toHaveLength(data.length);
  });

  it("never refuses a line without a duplicate, and always one with (seeded random objects)", async () => {
    const seed = 20261207;
    const rand = rng(seed);
    const pick = (s: string) => s[Math.floor(rand() * s.length)];
    const str = () => Array.from({ length: Math.floor(rand() * 6) }, () => pick(`:" \\ab,{}[]`)).join("");
    const value = (depth: number): unknown => {
      const r = rand();
      if (depth > 2 || r < 0.4) return str();
      if (r < 0.6) return Array.from({ length: Math.floor(rand() * 4) }, () => value(depth + 1));
      const o: Record<string, unknown> = {};
      for (let i = Math.floor(rand() * 4); i > 0; i--) o[str()] = value(depth + 1);
      return o;
    };
    for (let i = 0; i < 300; i++) {
      const data = { k: value(0) };
      const clean = event(i, JSON.stringify(data));
      const { errors } = await readJournalText(clean);
      expect(errors, `seed ${seed}, case ${i}: ${clean}`).toEqual([]);
      // the same object with its first key written again
      const doubled = event(i, JSON.stringify(data).replace(/^\{/, `{"k":0,`));
      const again = await readJournalText(doubled);
      expect(
        again.errors.map((e) => e.message),
        `seed ${seed}, case ${i}: ${doubled}`,
      ).toEqual([expect.stringMatching(/^an object has the same key twice/)]);
    }
  });
});
