/**
 * Redaction profiles: a reviewer bundle of a run seeded with personal data of every kind
 * holds none of it (the archive's raw bytes, every member, the report); a public bundle
 * holds no payload text; one value gives one placeholder within a bundle, and the
 * placeholder is keyed (not a bare hash of the value).
 */
import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { buildBundle, verifyBundle } from "@/lib/evidence";
import { unpackTarGz } from "@/lib/evidence/archive";
import { ibanValid, luhn, piiKindsIn } from "@/lib/evidence/pii";
import { ProfileRedactor, type Profile } from "@/lib/evidence/profiles";
import { newPrivateKeyPem, signerFromPem } from "@/lib/evidence/signer";
import { MARKERS, PII, PII_DIGIT_FORMS, sampleRun } from "./fixtures";

const signer = signerFromPem(newPrivateKeyPem());
const build = (profile: Profile, fields: string[] = []) =>
  buildBundle([sampleRun()], [], { profile, exporter: "user:rita", exportedAt: new Date(), retraceVersion: "test", signer, fields });

async function everyText(bundle: Uint8Array): Promise<{ name: string; text: string }[]> {
  const members = await unpackTarGz(bundle);
  return [
    { name: "archive", text: Buffer.from(bundle).toString("latin1") },
    ...members.map((m) => ({ name: m.path, text: Buffer.from(m.bytes).toString("utf8") })),
  ];
}

describe("personal data detectors", () => {
  it("check digits: Luhn and ISO 13616", () => {
    expect(luhn("4111 1111 1111 1111")).toBe(true);
    expect(luhn("4111 1111 1111 1112")).toBe(false);
    expect(ibanValid("GB82 WEST 1234 5698 7654 32")).toBe(true);
    expect(ibanValid("GB83 WEST 1234 5698 7654 32")).toBe(false);
  });

  it("find each kind, and leave look-alikes that fail their check or shape", () => {
    expect(piiKindsIn(`write to ${PII.email}`)).toEqual(["email"]);
    expect(piiKindsIn(`card ${PII.cardSpaced}`)).toEqual(["card"]);
    expect(piiKindsIn("card 4111 1111 1111 1112")).toEqual([]);
    expect(piiKindsIn(`iban ${PII.ibanSpaced}`)).toEqual(["iban"]);
    expect(piiKindsIn("iban GB83WEST12345698765432")).toEqual([]);
    expect(piiKindsIn(`from ${PII.ipv4}`)).toEqual(["ipv4"]);
    expect(piiKindsIn(`from ${PII.ipv6}`)).toEqual(["ipv6"]);
    expect(piiKindsIn(`ring ${PII.phoneIntl} or ${PII.phoneUs}`)).toEqual(["phone", "phone"]);
    // dates, times, versions, hashes and plain counts are not personal data
    expect(
      piiKindsIn("on 2026-12-01 at 10:00:59, v1.2.3, 33 events, sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"),
    ).toEqual([]);
  });

  it("scan hostile strings in linear time (a megabyte of near misses finishes)", () => {
    for (const s of [
      "a".repeat(1 << 20),
      "a@".repeat(1 << 19),
      "1.".repeat(1 << 19),
      "1 ".repeat(1 << 19),
      ":a".repeat(1 << 19),
      "+1".repeat(1 << 19),
    ])
      expect(Array.isArray(piiKindsIn(s))).toBe(true);
  });
});

describe("reviewer profile", () => {
  it("leaves none of the seeded personal data anywhere in the bundle", async () => {
    const bundle = await build("reviewer");
    expect((await verifyBundle(bundle)).ok).toBe(true);
    const texts = await everyText(bundle);
    expect(texts.map((t) => t.name)).toContain("report.html");
    for (const { name, text } of texts) {
      for (const v of [...Object.values(PII), ...PII_DIGIT_FORMS]) expect(text.includes(v), `${v} in ${name}`).toBe(false);
    }
    // and the payload otherwise stays readable
    const journal = texts.find((t) => t.name.endsWith("journal.jsonl"))!.text;
    expect(journal).toContain("capybararesult");
    expect(journal).toMatch(/\[pii:card:[0-9a-f]{12}\]/);
  });

  it("gives one value one placeholder across events, notes and fields of the bundle", async () => {
    const texts = await everyText(await build("reviewer"));
    const journal = texts.find((t) => t.name.endsWith("journal.jsonl"))!.text;
    const notes = texts.find((t) => t.name.endsWith("notes.json"))!.text;
    const emailInJournal = journal.match(/\[pii:email:[0-9a-f]{12}\]/g)!;
    const emailInNotes = notes.match(/\[pii:email:[0-9a-f]{12}\]/g)!;
    expect(new Set([...emailInJournal, ...emailInNotes]).size).toBe(1);
  });

  it("uses a keyed placeholder: not a bare hash of the value, and another bundle gives another", async () => {
    const a = new ProfileRedactor("reviewer").text(PII.email);
    const b = new ProfileRedactor("reviewer").text(PII.email);
    expect(a).not.toBe(b);
    const bare = createHash("sha256").update(PII.email).digest("hex");
    expect(bare.includes(a.slice(-13, -1))).toBe(false);
  });

  it("replaces the values at configured JSON paths", async () => {
    const texts = await everyText(await build("reviewer", ["data.args.memo", "data.result.*"]));
    const journal = texts.find((t) => t.name.endsWith("journal.jsonl"))!.text;
    // the tool call's memo is replaced; the model's tool-call args (another path) keep theirs
    expect(journal).toContain('"note":"pangolinargs"');
    expect(journal).not.toContain("capybararesult");
    expect(journal).toMatch(/"memo":"\[pii:field:[0-9a-f]{12}\]"/);
  });
});

describe("public profile", () => {
  it("holds no payload text at all, and no personal data", async () => {
    const bundle = await build("public");
    expect((await verifyBundle(bundle)).ok).toBe(true);
    for (const { name, text } of await everyText(bundle)) {
      for (const m of MARKERS) expect(text.includes(m), `${m} in ${name}`).toBe(false);
      for (const v of [...Object.values(PII), ...PII_DIGIT_FORMS]) expect(text.includes(v), `${v} in ${name}`).toBe(false);
    }
  });

  it("keeps the structure: types, tools, models, statuses, and each payload's length", async () => {
    const texts = await everyText(await build("public"));
    const journal = texts.find((t) => t.name.endsWith("journal.jsonl"))!.text;
    for (const kept of ['"tool":"pay"', '"model":"gpt-x"', '"status":"ok"', '"type":"tool.result"', '"name":"pay"'])
      expect(journal).toContain(kept);
    // "ibexfinal" is 9 characters long
    expect(journal).toMatch(/"output":"\[public:9:[0-9a-f]{12}\]"/);
  });
});
