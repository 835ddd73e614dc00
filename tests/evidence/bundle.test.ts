/**
 * Audit bundles without a database: export then verify passes; a change to any member kind
 * (journal, findings, notes, log, report), to the manifest or to the signature, or any
 * single byte of the .tar.gz, fails verification and names what failed.
 */
import { gunzipSync } from "node:zlib";
import { beforeAll, describe, expect, it } from "vitest";
import { buildBundle, describeFailures, verifyBundle, type BuildOptions } from "@/lib/evidence";
import { repack, unpackTarGz, type Member } from "@/lib/evidence/archive";
import { newPrivateKeyPem, signerFromPem } from "@/lib/evidence/signer";
import { sampleRun } from "./fixtures";

const signer = signerFromPem(newPrivateKeyPem());
const opts = (over: Partial<BuildOptions> = {}): BuildOptions => ({
  profile: "reviewer",
  exporter: "user:rita",
  exportedAt: new Date("2026-12-02T09:00:00.000Z"),
  retraceVersion: "test",
  signer,
  ...over,
});
const audit = [
  {
    seq: 1,
    ts: "2026-12-01T12:00:00.000Z",
    actor: "user:rita",
    action: "audit.export",
    project: "default",
    target: "bundle-run-1",
    reason: null,
    result: "ok",
    detail: "{}",
    prevHash: "0".repeat(64),
    hash: "a".repeat(64),
  },
];

let bundle: Uint8Array;
let members: Member[];

beforeAll(async () => {
  bundle = await buildBundle([sampleRun()], audit, opts());
  members = await unpackTarGz(bundle);
});

const text = (m: Member) => Buffer.from(m.bytes).toString("utf8");
/** The bundle with one member's text changed by `edit`. */
async function withMember(path: string, edit: (s: string) => string): Promise<Uint8Array> {
  const changed = members.map((m) => (m.path === path ? { path, bytes: Buffer.from(edit(text(m))) } : m));
  expect(changed.find((m) => m.path === path)).toBeDefined();
  return repack(changed);
}

describe("audit bundle", () => {
  it("holds the manifest, its signature, the report, the log and each run's journal, findings and notes", () => {
    expect(members.map((m) => m.path).sort()).toEqual(
      [
        "manifest.json",
        "manifest.sig",
        "report.html",
        "audit-log.json",
        "runs/001-bundle-run-1/journal.jsonl",
        "runs/001-bundle-run-1/findings.json",
        "runs/001-bundle-run-1/notes.json",
      ].sort(),
    );
    const manifest = JSON.parse(text(members.find((m) => m.path === "manifest.json")!));
    expect(manifest).toMatchObject({
      format: "retrace-audit-bundle",
      version: 1,
      exportedAt: "2026-12-02T09:00:00.000Z",
      exporter: "user:rita",
      profile: "reviewer",
      key: { algorithm: "Ed25519", id: signer.keyId },
      auditLog: { path: "audit-log.json", entries: 1 },
    });
    // sample run: 12 events (seq 0..11), one finding, two notes, one of them marking the finding a false positive
    expect(manifest.runs).toHaveLength(1);
    expect(manifest.runs[0]).toMatchObject({
      id: "bundle-run-1",
      events: 12,
      findings: 1,
      notes: 2,
      falsePositives: 1,
      versions: { prompts: { triage: "7" }, tools: { pay: "2" } },
    });
    // every member but the manifest and its signature is listed with its SHA-256
    expect(manifest.members.map((m: { path: string }) => m.path).sort()).toEqual(
      members
        .map((m) => m.path)
        .filter((p) => p !== "manifest.json" && p !== "manifest.sig")
        .sort(),
    );
  });

  it("verifies as exported", async () => {
    const r = await verifyBundle(bundle, { trustedPublicKeyPem: signer.publicKeyPem });
    expect(describeFailures(r)).toEqual([]);
    expect(r).toMatchObject({ ok: true, runs: 1, events: 12, keyTrusted: true });
  });

  it("is a gzip tar that tar(1) and gunzip read", () => {
    const tarBytes = gunzipSync(bundle);
    // ustar magic at offset 257 of the first header
    expect(tarBytes.subarray(257, 262).toString()).toBe("ustar");
  });

  it("fails naming the journal and the seq of a changed event", async () => {
    const path = "runs/001-bundle-run-1/journal.jsonl";
    // line 5 (index 4) is seq 4, the tool.call; change the tool it names
    const bad = await withMember(path, (s) => {
      const lines = s.split("\n");
      lines[4] = lines[4].replace('"tool":"pay"', '"tool":"pax"');
      return lines.join("\n");
    });
    const r = await verifyBundle(bad);
    expect(r.ok).toBe(false);
    expect(r.failures.some((f) => f.member === path && f.seq === undefined && /SHA-256/.test(f.message))).toBe(true);
    expect(r.failures.filter((f) => f.member === path && f.seq !== undefined).map((f) => f.seq)).toEqual([4]);
  });

  it("fails naming the journal when an event is removed (counts and chain)", async () => {
    const path = "runs/001-bundle-run-1/journal.jsonl";
    const bad = await withMember(path, (s) => {
      const lines = s.split("\n");
      lines.splice(7, 1); // seq 7
      return lines.join("\n");
    });
    const lines = describeFailures(await verifyBundle(bad));
    expect(lines.some((l) => l.startsWith(`${path} (seq 8)`))).toBe(true);
    expect(lines).toContain(`${path}: holds 11 events, the manifest says 12`);
  });

  for (const path of ["runs/001-bundle-run-1/findings.json", "runs/001-bundle-run-1/notes.json", "audit-log.json", "report.html"]) {
    it(`fails naming ${path} when one byte of it changes`, async () => {
      const bad = await withMember(path, (s) => {
        const i = Math.floor(s.length / 2);
        return s.slice(0, i) + (s[i] === "x" ? "y" : "x") + s.slice(i + 1);
      });
      const r = await verifyBundle(bad);
      expect(r.ok).toBe(false);
      expect(r.failures.map((f) => f.member)).toContain(path);
      expect(r.failures.find((f) => f.member === path)!.message).toMatch(/SHA-256/);
    });
  }

  it("fails on a changed manifest, even one that re-states a changed member's hash", async () => {
    const bad = await withMember("manifest.json", (s) => s.replace('"exporter": "user:rita"', '"exporter": "user:mallory"'));
    const r = await verifyBundle(bad);
    expect(r.ok).toBe(false);
    expect(r.failures.map((f) => f.member)).toEqual(["manifest.sig"]);
    expect(r.failures[0].message).toMatch(/does not match manifest\.json/);
  });

  it("fails on a changed signature", async () => {
    const bad = await withMember("manifest.sig", (s) => (s[0] === "A" ? "B" : "A") + s.slice(1));
    const r = await verifyBundle(bad);
    expect(r.failures.map((f) => f.member)).toEqual(["manifest.sig"]);
  });

  it("fails when re-signed with another key and a trusted key is given", async () => {
    const other = signerFromPem(newPrivateKeyPem());
    const forged = await buildBundle([sampleRun()], audit, opts({ signer: other }));
    expect((await verifyBundle(forged)).ok).toBe(true);
    const r = await verifyBundle(forged, { trustedPublicKeyPem: signer.publicKeyPem });
    expect(r.ok).toBe(false);
    expect(r.keyTrusted).toBe(false);
    expect(r.failures[0].member).toBe("manifest.sig");
  });

  it("fails on a member added or removed", async () => {
    const extra = await repack([...members, { path: "runs/extra.txt", bytes: Buffer.from("hi") }]);
    expect(describeFailures(await verifyBundle(extra))).toEqual(["runs/extra.txt: in the archive but not listed in the manifest"]);
    const fewer = await repack(members.filter((m) => m.path !== "report.html"));
    expect(describeFailures(await verifyBundle(fewer))).toEqual(["report.html: listed in the manifest but missing from the archive"]);
  });

  it("fails when any single byte of the .tar.gz changes", async () => {
    const passedAt: number[] = [];
    // every byte of the gzip header and trailer, and every 5th byte between, each bit of
    // it in turn across the bytes (a flipped bit where deflate ignores it decompresses alike)
    for (let i = 0, n = 0; i < bundle.length; i += i < 10 || i >= bundle.length - 8 ? 1 : 5, n++) {
      const bad = Uint8Array.from(bundle);
      bad[i] ^= 1 << (n % 8);
      if ((await verifyBundle(bad)).ok) passedAt.push(i);
    }
    // the last deflate byte's padding bits: flipping them changes nothing decompressed
    const last = bundle.length - 9;
    for (let bit = 0; bit < 8; bit++) {
      const bad = Uint8Array.from(bundle);
      bad[last] ^= 1 << bit;
      if ((await verifyBundle(bad)).ok) passedAt.push(last);
    }
    expect(passedAt).toEqual([]);
  });

  it("reports a file that is not a bundle as the archive", async () => {
    const r = await verifyBundle(Buffer.from("not a bundle at all, just text"));
    expect(r.failures).toEqual([{ member: "archive", message: expect.stringMatching(/gzip/) }]);
  });
});
