import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import type { z } from "zod";
import { createRng } from "../replay/testing/journal-generator";
import { fastValidate } from "./fast-validate";
import { validatorModuleSource } from "./validator-source";
import { dataSchemas, envelopeSchema } from "./schema";

const EXAMPLES = path.resolve("tests/fixtures/examples");

/** zod's verdict on the event (the envelope, then the event's own data against its type's schema). */
function zodAccepts(value: Record<string, unknown>): boolean {
  const env = envelopeSchema.safeParse(value);
  if (!env.success) return false;
  const schema = (dataSchemas as Record<string, z.ZodType>)[env.data.type as string];
  return schema ? schema.safeParse(value.data).success : true;
}

/** A seeded choice of ways to break (or keep) an event. */
function mutations(event: Record<string, unknown>, rnd: () => number): Array<Record<string, unknown>> {
  const out: Array<Record<string, unknown>> = [];
  const clone = () => JSON.parse(JSON.stringify(event)) as Record<string, unknown>;
  const odd: unknown[] = [null, 7, -1, 1.5, "x", "", true, [], {}, [1], { a: 1 }, "2026-13-40T99:00:00Z", "sha256:" + "g".repeat(64)];
  const pick = () => odd[Math.floor(rnd() * odd.length)];
  for (const key of Object.keys(event)) {
    const a = clone();
    delete a[key];
    out.push(a);
    const b = clone();
    b[key] = pick();
    out.push(b);
  }
  const data = event.data as Record<string, unknown> | undefined;
  if (data && typeof data === "object") {
    for (const key of Object.keys(data)) {
      const a = clone();
      delete (a.data as Record<string, unknown>)[key];
      out.push(a);
      const b = clone();
      (b.data as Record<string, unknown>)[key] = pick();
      out.push(b);
    }
  }
  const extra = clone();
  extra.somethingNew = { kept: true };
  out.push(extra);
  return out;
}

describe("fastValidate", () => {
  it("runs the validators generated from the current zod schema (npm run schema:json)", () => {
    expect(fs.readFileSync("lib/journal/generated/validators.ts", "utf8")).toBe(validatorModuleSource());
  });

  // parseLine takes the fast path's yes, and asks zod (which decides) on its no
  it("gives zod's verdict on every example event and on thousands of broken ones", () => {
    const rnd = createRng(3).next;
    let checked = 0;
    let rejected = 0;
    for (const f of fs.readdirSync(EXAMPLES).filter((n) => n.endsWith(".jsonl"))) {
      for (const line of fs.readFileSync(path.join(EXAMPLES, f), "utf8").split("\n")) {
        if (!line.trim()) continue;
        const event = JSON.parse(line) as Record<string, unknown>;
        for (const v of [event, ...mutations(event, rnd)]) {
          const want = zodAccepts(v);
          const got = fastValidate(v);
          expect(got, `${f}: ${JSON.stringify(v).slice(0, 300)}`).toBe(want);
          checked++;
          if (!want) rejected++;
        }
      }
    }
    expect(checked).toBeGreaterThan(5000);
    expect(rejected).toBeGreaterThan(1000);
  });
});
