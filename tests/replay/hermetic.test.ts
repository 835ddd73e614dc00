/**
 * A replay reaches no tool and no model. Checked two ways: every network entry point is
 * stubbed to record calls while journals naming real-looking endpoints are replayed and
 * forked; and the import graph of lib/replay is walked to show it has nothing that could
 * reach the network in the first place.
 */
import { readFileSync, existsSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { refuseNetwork } from "../helpers/no-network";
import type { JournalEvent } from "../../lib/journal/types";
import { createReplay, type ForkOverride } from "../../lib/replay";
import { generateRun } from "../../lib/replay/testing/journal-generator";
import { journal, result, start } from "../analyze/journal-builder";

describe("hermetic replay", () => {
  const calls = refuseNetwork();

  const endpoints = journal([
    start({ requireApproval: ["issue_refund"] }),
    { type: "state", data: { set: {}, hash: "sha256:44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a" } },
    {
      type: "tool.call",
      data: {
        call: "r1",
        tool: "fetch_page",
        args: { url: "https://docs.example/refunds" },
        effect: "read",
        target: "https://docs.example",
      },
    },
    result("r1", "ok", { result: { body: "…" } }),
    {
      type: "approval.request",
      data: { approval: "a1", call: "w1", stateHash: "sha256:44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a" },
    },
    {
      type: "approval.decision",
      data: {
        approval: "a1",
        decision: "approved",
        by: "r",
        stateHash: "sha256:44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a",
      },
    },
    {
      type: "tool.call",
      data: {
        call: "w1",
        tool: "issue_refund",
        args: { chargeId: "ch_1", callback: "https://payments.example/api/hooks" },
        effect: "write",
        idempotencyKey: "k1",
        target: "https://payments.example/api",
      },
    },
    result("w1", "ok", { externalId: "re_1" }),
    {
      type: "tool.call",
      data: {
        call: "w2",
        tool: "send_email",
        args: { smtp: "smtp://mail.example:25", ws: "wss://events.example/stream" },
        effect: "write",
        idempotencyKey: "k2",
        target: "smtp://mail.example",
      },
    },
    result("w2", "timeout"),
    { type: "model.request", data: { call: "m1", model: "https://models.example/v1/chat", messages: [] } },
    { type: "model.response", data: { call: "m1", output: { text: "done" } } },
  ]);

  const forks: Array<[number, ForkOverride]> = [
    [0, { policy: { requireApproval: ["send_email", "fetch_page"] } }],
    [5, { approval: "denied" }],
    [7, { toolResult: { status: "unknown" } }],
    [10, { modelOutput: { toolCalls: [{ id: "x", name: "issue_refund", args: { url: "https://payments.example/api" } }] } }],
    [3, { state: { endpoint: "https://payments.example/api" } }],
  ];

  it("replays and forks a journal full of endpoints without a single network call", () => {
    const replays = [createReplay(endpoints), ...forks.map(([seq, override]) => createReplay(endpoints, { fork: { seq, override } }))];
    for (const r of replays) {
      for (let i = 0; i < r.frames.length; i++) r.seek(i);
      r.summary();
    }
    const generated: JournalEvent[] = generateRun({ seed: 11, faults: 0.2 });
    createReplay(generated).summary();
    expect(calls).toEqual([]);
  });

  it("tags every write effect blocked and substitutes the recorded results", () => {
    for (const r of [createReplay(endpoints), ...forks.map(([seq, override]) => createReplay(endpoints, { fork: { seq, override } }))]) {
      const writes = r.frames.filter((f) => f.event.type === "tool.call" && f.event.data.effect === "write");
      expect(writes.length).toBeGreaterThan(0);
      for (const f of writes) expect(f.provenance).toBe("blocked");
      for (const f of r.frames.filter((x) => x.event.type === "tool.result" && x.provenance !== "simulated"))
        expect(f.substituted).toBe(true);
    }
    expect(createReplay(endpoints).summary().blocked).toEqual([6, 8]);
  });

  it("refuses the gated call of a denied approval even though it is a read", () => {
    const r = createReplay(endpoints, { fork: { seq: 0, override: { policy: { requireApproval: ["fetch_page"] } } } });
    expect(r.frames.find((f) => f.seq === 2)).toMatchObject({ provenance: "blocked", stale: false });
  });
});

describe("lib/replay cannot reach the network", () => {
  const ROOT = path.resolve(__dirname, "../..");
  // Everything lib/replay may load outside its own files: pure computation only.
  const ALLOWED_PACKAGES = new Set([
    "fast-json-patch",
    "safe-stable-stringify",
    "canonicalize",
    "@noble/hashes/sha2.js",
    "@noble/hashes/utils.js",
    "lossless-json",
    "zod",
  ]);

  function resolveLocal(from: string, spec: string): string {
    const base = path.resolve(path.dirname(from), spec);
    for (const candidate of [base, `${base}.ts`, path.join(base, "index.ts")])
      if (existsSync(candidate) && candidate.endsWith(".ts")) return candidate;
    throw new Error(`cannot resolve ${spec} from ${from}`);
  }

  it("imports only local pure modules and computation-only packages (no node:, no HTTP, no sockets)", () => {
    const seen = new Set<string>();
    const packages = new Set<string>();
    const stack = [path.join(ROOT, "lib/replay/index.ts")];
    while (stack.length > 0) {
      const file = stack.pop()!;
      if (seen.has(file)) continue;
      seen.add(file);
      const source = readFileSync(file, "utf8");
      expect(source, file).not.toMatch(/\b(fetch|XMLHttpRequest|WebSocket|EventSource|importScripts)\s*\(/);
      expect(source, file).not.toMatch(/\bimport\s*\(/);
      expect(source, file).not.toMatch(/\brequire\s*\(/);
      for (const m of source.matchAll(/^\s*(?:import|export)\b[^'"]*?from\s+["']([^"']+)["']/gm)) {
        const spec = m[1];
        if (spec.startsWith(".")) stack.push(resolveLocal(file, spec));
        else packages.add(spec);
      }
    }
    expect([...packages].filter((p) => !ALLOWED_PACKAGES.has(p))).toEqual([]);
    expect([...seen].some((f) => f.includes(`${path.sep}server${path.sep}`))).toBe(false);
    expect(seen.size).toBeGreaterThan(5);
  });
});
