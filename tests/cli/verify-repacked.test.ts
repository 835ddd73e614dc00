/**
 * `retrace verify` (the real CLI) on a bundle whose bytes are not the ones export wrote:
 * recompressed by another gzip, with and without one journal line edited. The edited
 * journal is named whatever compressed it; an unedited repack fails as "archive" alone,
 * saying every member's hash and chain still hold (the file is not the one exported, so it
 * is not a pass; see docs/audit-bundle.md, "Verify").
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { gunzipSync, gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildBundle } from "@/lib/evidence";
import { repack, unpackTarGz } from "@/lib/evidence/archive";
import { newPrivateKeyPem, signerFromPem } from "@/lib/evidence/signer";
import { sampleRun } from "../evidence/fixtures";
import { cli } from "../analyze/run-cli";

const JOURNAL = "runs/001-bundle-run-1/journal.jsonl";
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "retrace-verify-"));
let exported: Uint8Array;
let editedTar: Buffer;

/** Another gzip than export's: node's zlib at level 1, or the system's gzip (with a file name and time in its header). */
const recompressors: Record<string, (tar: Buffer) => Buffer> = {
  "node:zlib level 1": (tar) => gzipSync(tar, { level: 1 }),
  "system gzip": (tar) => {
    const src = path.join(dir, `bundle-${Math.random().toString(36).slice(2)}.tar`);
    fs.writeFileSync(src, tar);
    const r = spawnSync("gzip", ["-6", "-N", "-c", src]);
    expect(r.status).toBe(0);
    return r.stdout;
  },
};

function write(name: string, bytes: Uint8Array): string {
  const file = path.join(dir, name);
  fs.writeFileSync(file, bytes);
  return file;
}

function verify(file: string) {
  const human = cli("verify", file);
  const json = cli("verify", file, "--json");
  return {
    human,
    status: json.status,
    report: JSON.parse(json.stdout) as { ok: boolean; membersHold: boolean; failures: { member: string; seq?: number; message: string }[] },
  };
}

beforeAll(async () => {
  const signer = signerFromPem(newPrivateKeyPem());
  exported = await buildBundle([sampleRun()], [], {
    profile: "reviewer",
    exporter: "user:rita",
    exportedAt: new Date("2026-12-02T09:00:00.000Z"),
    retraceVersion: "test",
    signer,
  });
  const members = await unpackTarGz(exported);
  const edited = members.map((m) => {
    if (m.path !== JOURNAL) return m;
    const lines = Buffer.from(m.bytes).toString("utf8").split("\n");
    // line 5 is seq 4, the tool.call to "pay"
    expect(lines[4]).toContain('"tool":"pay"');
    lines[4] = lines[4].replace('"tool":"pay"', '"tool":"pax"');
    return { path: m.path, bytes: Buffer.from(lines.join("\n")) };
  });
  editedTar = gunzipSync(await repack(edited));
});

afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

describe("retrace verify on a recompressed bundle", () => {
  it("passes the bundle as exported", () => {
    const r = verify(write("exported.tar.gz", exported));
    expect(r.status).toBe(0);
    expect(r.report).toMatchObject({ ok: true, membersHold: true, failures: [] });
  });

  for (const [name, recompress] of Object.entries(recompressors)) {
    it(`names the edited journal member and its seq when ${name} recompressed it`, () => {
      const file = write(`edited-${name.replace(/\W+/g, "-")}.tar.gz`, recompress(editedTar));
      const r = verify(file);
      expect(r.status).toBe(1);
      expect(r.report.ok).toBe(false);
      expect(r.report.membersHold).toBe(false);
      const journal = r.report.failures.filter((f) => f.member === JOURNAL);
      expect(journal.some((f) => /SHA-256/.test(f.message))).toBe(true);
      expect(journal.filter((f) => f.seq !== undefined).map((f) => f.seq)).toEqual([4]);
      // only the container and the journal: the other members are intact
      expect(new Set(r.report.failures.map((f) => f.member))).toEqual(new Set(["archive", JOURNAL]));
      expect(r.human.status).toBe(1);
      expect(r.human.stderr).toContain(`${JOURNAL} (seq 4): the chain breaks at seq 4`);
    });

    it(`says every member holds, but fails, when ${name} recompressed it unedited`, async () => {
      const tar = gunzipSync(exported);
      const file = write(`unedited-${name.replace(/\W+/g, "-")}.tar.gz`, recompress(tar));
      expect(fs.readFileSync(file).equals(Buffer.from(exported))).toBe(false);
      const r = verify(file);
      expect(r.status).toBe(1);
      expect(r.report).toMatchObject({ ok: false, membersHold: true });
      expect(r.report.failures).toHaveLength(1);
      expect(r.report.failures[0].member).toBe("archive");
      expect(r.report.failures[0].message).toMatch(/differs from .* Retrace writes.*every member's hash and every journal's chain hold/);
    });
  }
});
