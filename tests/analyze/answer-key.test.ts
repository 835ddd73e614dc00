/**
 * The example journals and their answer key: every file's set of {rule, seq} must be
 * exactly the key's (nothing extra, nothing missing), with the format's severities and
 * messages that never quote a secret.
 */
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { analyzeJournal, RULE_SEVERITY } from "../../lib/analyze";
import { readJournalText } from "../../lib/journal/reader";
import { hasSecret } from "../../lib/redact/patterns";

const DIR = path.resolve(__dirname, "../fixtures/examples");
const answers = JSON.parse(readFileSync(path.join(DIR, "answers.json"), "utf8")) as Record<string, Array<{ rule: string; seq: number }>>;
const files = readdirSync(DIR)
  .filter((f) => f.endsWith(".jsonl"))
  .sort();

const key = (f: { rule: string; seq: number }) => `${f.rule}@${f.seq}`;

describe("answer key of the example journals", () => {
  it("covers all 18 example files", () => {
    expect(files).toHaveLength(18);
    expect(Object.keys(answers).sort()).toEqual(files);
  });

  it.each(files)("%s: findings equal the answer key exactly", async (file) => {
    const { events, errors } = await readJournalText(readFileSync(path.join(DIR, file), "utf8"));
    expect(errors).toEqual([]);
    const findings = analyzeJournal(events);
    expect(findings.map(key).sort()).toEqual(answers[file].map(key).sort());
    for (const f of findings) {
      expect(f.severity).toBe(RULE_SEVERITY[f.rule]);
      expect(f.message.length).toBeGreaterThan(0);
      expect(hasSecret(f.message)).toBe(false);
    }
  });

  it("names the kind and path of an exposed secret but never its value", async () => {
    const text = readFileSync(path.join(DIR, "17-booking-secret.exposed.jsonl"), "utf8");
    const { events } = await readJournalText(text);
    const messages = analyzeJournal(events).map((f) => f.message);
    expect(messages[0]).toContain("data.args.headers.Authorization");
    expect(messages[1]).toContain("data.debug");
    expect(messages.join(" ")).not.toMatch(/sk_live_|pwV4PL9WTB|Bearer [A-Za-z0-9]/);
  });
});
