/**
 * Declared policy (issue 33): tool contracts and the five invariant kinds, read from
 * `run.start.data.policy`. Each kind fires at the exact tool.call that breaks it (the seq is
 * known from how the journal is built, not read back from the output), never on a run that
 * obeys it, and only from the past: a seeded property test grows random runs one event at a
 * time and checks that no earlier finding moves or goes away. The replay reports the same
 * calls as divergences, and an analyzer continued from a snapshot finds what one pass finds.
 */
import { describe, expect, it } from "vitest";
import { analyzeEvents, createAnalyzer } from "@/lib/analyze";
import { parseLine } from "@/lib/journal/parse-line";
import type { Finding, JournalEvent } from "@/lib/journal/types";
import { createReplay } from "@/lib/replay";

type Data = Record<string, unknown>;
function journal(items: Array<[string, Data]>): JournalEvent[] {
  return items.map(
    ([type, data], seq) =>
      ({ run: "r", seq, ts: new Date(Date.UTC(2026, 0, 1, 0, 0, 0, seq)).toISOString(), type, data }) as unknown as JournalEvent,
  );
}
const start = (policy: Data): [string, Data] => ["run.start", { workflow: { name: "airline" }, policy }];
const user = (text: string): [string, Data] => ["input", { source: "user", content: text }];
const call = (id: string, tool: string, args: Data, effect: "read" | "write" = "write"): [string, Data] => [
  "tool.call",
  { call: id, tool, args, effect, ...(effect === "write" ? { idempotencyKey: `k-${id}` } : {}) },
];
const result = (id: string, status: string, res?: unknown): [string, Data] => [
  "tool.result",
  { call: id, status, ...(res === undefined ? {} : { result: res }) },
];

const policyFindings = (events: JournalEvent[]) =>
  analyzeEvents(events).filter((f) => f.rule.startsWith("policy.") || f.rule === "tool.args-invalid");
const at = (fs: Finding[]) => fs.map((f) => `${f.rule}@${f.seq}`);

describe("requires-before", () => {
  const policy = {
    invariants: [
      {
        id: "read-first",
        kind: "requires-before",
        tools: ["cancel"],
        after: "get_res",
        sameArg: { arg: "/id", afterArg: "/reservation_id" },
      },
    ],
  };
  it("fires at a cancel whose reservation was never read successfully, naming the invariant", () => {
    const events = journal([
      start(policy),
      call("c1", "get_res", { reservation_id: "R1" }, "read"),
      result("c1", "error"),
      call("c2", "get_res", { reservation_id: "R2" }, "read"),
      result("c2", "ok", { status: "active" }),
      call("c3", "cancel", { id: "R1" }), // seq 5: R1's read failed, R2's does not count
      call("c4", "cancel", { id: "R2" }),
    ]);
    const fs = policyFindings(events);
    expect(at(fs)).toEqual(["policy.requires-before@5"]);
    expect(fs[0].message).toContain('"read-first"');
    expect(fs[0].message).toContain('"get_res"');
  });
  it("says nothing on a run that reads before each cancel", () => {
    const events = journal([
      start(policy),
      call("a", "get_res", { reservation_id: "R1" }, "read"),
      result("a", "ok", {}),
      call("b", "cancel", { id: "R1" }),
    ]);
    expect(policyFindings(events)).toEqual([]);
  });
  it("matches on an earlier result with afterResult, and accepts any tool of an after list", () => {
    const p = {
      invariants: [
        {
          id: "known",
          kind: "requires-before",
          tools: ["cancel"],
          after: ["get_res", "book"],
          sameArg: { arg: "/id", afterResult: "/reservation_id" },
        },
      ],
    };
    const events = journal([
      start(p),
      call("b", "book", { flights: [] }),
      result("b", "ok", { reservation_id: "NEW1" }),
      call("c", "cancel", { id: "NEW1" }), // known from the booking's result
      call("d", "cancel", { id: "OLD9" }), // seq 4: never read nor booked
    ]);
    expect(at(policyFindings(events))).toEqual(["policy.requires-before@4"]);
  });
  it("counts only a result that came before the call", () => {
    const events = journal([
      start(policy),
      call("a", "get_res", { reservation_id: "R1" }, "read"),
      call("b", "cancel", { id: "R1" }),
      result("a", "ok", {}),
    ]);
    expect(at(policyFindings(events))).toEqual(["policy.requires-before@2"]);
  });
});

describe("state-precondition", () => {
  const policy = {
    invariants: [
      {
        id: "cancel-active-only",
        kind: "state-precondition",
        tools: ["cancel"],
        arg: "/id",
        source: { tool: "get_res", arg: "/reservation_id", path: "/status" },
        in: ["active"],
      },
    ],
  };
  it("fires at the call on an object last read in a forbidden state, with the read as evidence", () => {
    const events = journal([
      start(policy),
      call("a", "get_res", { reservation_id: "R1" }, "read"),
      result("a", "ok", { status: "active" }),
      call("b", "get_res", { reservation_id: "R1" }, "read"),
      result("b", "ok", { status: "cancelled" }), // seq 4: the last read
      call("c", "cancel", { id: "R1" }), // seq 5
    ]);
    const fs = policyFindings(events);
    expect(at(fs)).toEqual(["policy.state-precondition@5"]);
    expect(fs[0].message).toContain("evidence seq 4");
  });
  it("says nothing when the last read allows it, or when the object was never read", () => {
    const events = journal([
      start(policy),
      call("a", "get_res", { reservation_id: "R1" }, "read"),
      result("a", "ok", { status: "cancelled" }),
      call("b", "get_res", { reservation_id: "R1" }, "read"),
      result("b", "ok", { status: "active" }),
      call("c", "cancel", { id: "R1" }),
      call("d", "cancel", { id: "R9" }),
    ]);
    expect(policyFindings(events)).toEqual([]);
  });
});

describe("once-per", () => {
  const policy = { invariants: [{ id: "modify-once", kind: "once-per", tools: ["modify", "exchange"], arg: "/order_id" }] };
  it("fires at the second write for the same order after one that did not fail, not after a failed one", () => {
    const events = journal([
      start(policy),
      call("a", "modify", { order_id: "#1" }),
      result("a", "error"), // failed: the next is not a second modification
      call("b", "exchange", { order_id: "#1" }), // seq 3
      result("b", "ok", {}),
      call("c", "modify", { order_id: "#2" }),
      call("d", "modify", { order_id: "#1" }), // seq 6: second after b
    ]);
    const fs = policyFindings(events);
    expect(at(fs)).toEqual(["policy.once-per@6"]);
    expect(fs[0].message).toContain("evidence seq 3");
  });
  it("says nothing when each order is written once", () => {
    const events = journal([
      start(policy),
      call("a", "modify", { order_id: "#1" }),
      result("a", "ok", {}),
      call("b", "modify", { order_id: "#2" }),
    ]);
    expect(policyFindings(events)).toEqual([]);
  });
});

describe("confirmed-by-input", () => {
  const policy = { invariants: [{ id: "explicit-yes", kind: "confirmed-by-input", tools: ["book"], words: ["yes", "go ahead"] }] };
  it("fires at a write whose last user input before it holds no confirmation, and at one with no input at all", () => {
    const events = journal([
      start(policy),
      call("a", "book", { f: 1 }), // seq 1: no input yet
      user("Yes, book it."),
      call("b", "book", { f: 2 }), // confirmed
      user("Actually, what about yesterday's flight?"), // "yesterday" is not "yes"
      call("c", "book", { f: 3 }), // seq 5
      user("ok, go ahead"),
      call("d", "book", { f: 4 }),
    ]);
    const fs = policyFindings(events);
    expect(at(fs)).toEqual(["policy.confirmed-by-input@1", "policy.confirmed-by-input@5"]);
    expect(fs[1].message).toContain("evidence seq 4");
  });
});

describe("arg-from-input", () => {
  const policy = {
    invariants: [{ id: "pay-known", kind: "arg-from-input", tools: ["book"], arg: "/payment/*/id", from: ["user", { tool: "get_user" }] }],
  };
  it("fires when a value appears in no earlier user input or allowed result, and matches whole values only", () => {
    const events = journal([
      start(policy),
      user("use my card credit_card_7"),
      call("u", "get_user", { user_id: "u1" }, "read"),
      result("u", "ok", { payment_methods: { gift_card_55: { balance: 10 } } }),
      call("a", "book", { payment: [{ id: "gift_card_55" }, { id: "credit_card_7" }] }), // both known
      call("b", "book", { payment: [{ id: "credit_card_77" }] }), // seq 5: only credit_card_7 was said
      call("c", "book", { payment: [{ id: "gift_card_55" }, { id: "gift_card_5" }] }), // seq 6
    ]);
    expect(at(policyFindings(events))).toEqual(["policy.arg-from-input@5", "policy.arg-from-input@6"]);
  });
  it("does not take values from a tool the invariant does not name", () => {
    const events = journal([
      start(policy),
      call("x", "search", {}, "read"),
      result("x", "ok", ["credit_card_9"]),
      call("a", "book", { payment: [{ id: "credit_card_9" }] }),
    ]);
    expect(at(policyFindings(events))).toEqual(["policy.arg-from-input@3"]);
  });
});

describe("tool contracts", () => {
  const tools = {
    book: {
      effect: "write",
      idempotency: "not-applicable",
      args: {
        type: "object",
        properties: {
          passengers: { type: "array", maxItems: 5, items: { type: "object", required: ["first_name"] } },
          cabin: { enum: ["economy", "business"] },
        },
        required: ["passengers", "cabin"],
      },
    },
    lookup: { effect: "read" },
  };
  it("reports tool.args-invalid at the call with the failing keyword and path", () => {
    const events = journal([
      start({ tools }),
      call("a", "book", { cabin: "economy", passengers: [{ first_name: "A" }] }),
      call("b", "book", { cabin: "first", passengers: [] }), // seq 2
      call("c", "book", { cabin: "economy", passengers: [{ last_name: "B" }] }), // seq 3
    ]);
    const fs = policyFindings(events);
    expect(at(fs)).toEqual(["tool.args-invalid@2", "tool.args-invalid@3"]);
    expect(fs[0].message).toContain("keyword enum");
    expect(fs[0].message).toContain('"/cabin"');
    expect(fs[1].message).toContain("keyword required");
    expect(fs[1].message).toContain('"/passengers/0/first_name"');
    expect(fs[1].message).not.toContain("B");
  });
  it("refuses a schema with a $ref or a pattern at every call to the tool instead of skipping it", () => {
    const events = journal([
      start({
        tools: {
          t: { args: { $ref: "https://example.com/s.json" } },
          p: { args: { properties: { s: { type: "string", pattern: "(a+)+$" } } } },
        },
      }),
      call("a", "t", {}),
      call("b", "p", { s: "aaaa" }),
    ]);
    const fs = policyFindings(events);
    expect(at(fs)).toEqual(["tool.args-invalid@1", "tool.args-invalid@2"]);
    expect(fs[0].message).toContain("references are not allowed");
    expect(fs[1].message).toContain("regular expressions are not allowed");
  });
  it("a declared effect overrides an inferred one, and not-applicable idempotency needs no key", () => {
    const events = journal([
      start({ tools }),
      ["tool.call", { call: "a", tool: "lookup", args: {}, effect: "write", effectInferred: true }],
      ["tool.call", { call: "b", tool: "other", args: {}, effect: "write", effectInferred: true }], // seq 2
      ["tool.call", { call: "c", tool: "book", args: { cabin: "economy", passengers: [] }, effect: "write" }],
    ]);
    expect(at(analyzeEvents(events).filter((f) => f.rule === "effect.no-idempotency"))).toEqual(["effect.no-idempotency@2"]);
  });
});

describe("every reader", () => {
  const policy = {
    invariants: [
      { id: "confirm", kind: "confirmed-by-input", tools: ["book"], words: ["yes"] },
      { id: "once", kind: "once-per", tools: ["book"], arg: "/f" },
    ],
  };
  const events = journal([
    start(policy),
    user("yes"),
    call("a", "book", { f: 1 }),
    result("a", "ok", {}),
    user("and again"),
    call("b", "book", { f: 1 }),
  ]);
  it("the replay reports a divergence at every call the analyzer reports", () => {
    const findings = [...new Set(policyFindings(events).map((f) => f.seq))];
    const divergences = [
      ...new Set(
        createReplay(events)
          .divergences.filter((d) => d.kind === "invariant")
          .map((d) => d.seq),
      ),
    ];
    expect(findings).toEqual([5]);
    expect(divergences).toEqual(findings);
  });
  it("an analyzer continued from a JSON snapshot finds what one pass finds", () => {
    const first = createAnalyzer();
    for (const e of events.slice(0, 4)) first.push(e);
    const snap = JSON.parse(JSON.stringify(first.snapshot()));
    const second = createAnalyzer(snap);
    for (const e of events.slice(4)) second.push(e);
    expect(second.findings()).toEqual(analyzeEvents(events));
  });
});

describe("past-only (seeded property)", () => {
  // mulberry32: kept seeds reproduce a failure exactly
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
  const policy = {
    tools: { book: { args: { type: "object", required: ["f"] } } },
    invariants: [
      { id: "rb", kind: "requires-before", tools: ["book", "cancel"], after: "get", sameArg: { arg: "/f", afterArg: "/f" } },
      { id: "sp", kind: "state-precondition", tools: ["cancel"], arg: "/f", source: { tool: "get", arg: "/f", path: "/s" }, in: ["open"] },
      { id: "op", kind: "once-per", tools: ["book", "cancel"], arg: "/f" },
      { id: "cb", kind: "confirmed-by-input", tools: ["book", "cancel"], words: ["yes"] },
      { id: "af", kind: "arg-from-input", tools: ["book"], arg: "/f", from: ["user", { tool: "get" }] },
    ],
  };
  function randomRun(seed: number): JournalEvent[] {
    const r = rng(seed);
    const pick = <T>(xs: readonly T[]) => xs[Math.floor(r() * xs.length)];
    const items: Array<[string, Data]> = [start(policy)];
    const open: string[] = [];
    for (let i = 0; i < 40; i++) {
      const x = r();
      const f = pick(["1", "2", "3"]);
      if (x < 0.2) items.push(user(pick(["yes", "no", `yes ${f}`, `about ${f}`])));
      else if (x < 0.6) {
        const id = `c${i}`;
        const tool = pick(["get", "book", "cancel"]);
        items.push(call(id, tool, r() < 0.1 ? {} : { f }, tool === "get" ? "read" : "write"));
        open.push(id);
      } else if (open.length > 0) {
        const id = open.splice(Math.floor(r() * open.length), 1)[0];
        items.push(result(id, pick(["ok", "ok", "error", "unknown"]), { s: pick(["open", "closed"]), f }));
      }
    }
    return journal(items);
  }
  const SEEDS = Array.from({ length: 60 }, (_, i) => 1000 + i);
  it.each(SEEDS)("seed %i: adding later events never moves or removes an earlier finding", (seed) => {
    const events = randomRun(seed);
    const full = at(policyFindings(events));
    let fired = 0;
    for (let n = 1; n <= events.length; n++) {
      const prefix = at(policyFindings(events.slice(0, n)));
      const fullUpTo = full.filter((w) => Number(w.split("@")[1]) < n);
      expect(prefix, `seed ${seed}, first ${n} events`).toEqual(fullUpTo);
      fired = prefix.length;
    }
    expect(fired).toBe(full.length);
  });
  it("the random runs exercise every kind", () => {
    const kinds = new Set(SEEDS.flatMap((s) => policyFindings(randomRun(s)).map((f) => f.rule)));
    expect([...kinds].sort()).toEqual(
      [
        "policy.arg-from-input",
        "policy.confirmed-by-input",
        "policy.once-per",
        "policy.requires-before",
        "policy.state-precondition",
        "tool.args-invalid",
      ].sort(),
    );
  });
});

describe("the journal schema", () => {
  const line = (policy: unknown) =>
    JSON.stringify({ run: "r", seq: 0, ts: "2026-01-01T00:00:00.000Z", type: "run.start", data: { policy } });
  it("accepts a policy with contracts and every kind", () => {
    const ok = parseLine(
      line({
        tools: { book: { effect: "write", idempotency: "required", args: { type: "object" } } },
        invariants: [
          { id: "a", kind: "requires-before", tools: ["x"], after: "y" },
          {
            id: "b",
            kind: "state-precondition",
            tools: ["x"],
            arg: "/id",
            source: { tool: "y", arg: "/id", path: "/s" },
            in: ["open", 1, null],
          },
          { id: "c", kind: "once-per", tools: ["x"], arg: "/id" },
          { id: "d", kind: "confirmed-by-input", tools: ["x"], words: ["yes"] },
          { id: "e", kind: "arg-from-input", tools: ["x"], arg: "/p/*", from: ["user", { tool: "y" }] },
        ],
      }),
    );
    expect(ok.ok).toBe(true);
  });
  it("refuses an unknown kind, a path that is no JSON Pointer and a bad effect, naming the field", () => {
    const message = (r: ReturnType<typeof parseLine>) => (r.ok ? "accepted" : r.message);
    expect(message(parseLine(line({ invariants: [{ id: "a", kind: "run-code", tools: ["x"], code: "rm -rf /" }] })))).toMatch(
      /policy\.invariants\[0\]\.kind: Invalid discriminator/,
    );
    expect(message(parseLine(line({ invariants: [{ id: "c", kind: "once-per", tools: ["x"], arg: "id" }] })))).toMatch(
      /policy\.invariants\[0\]\.arg: expected a JSON Pointer/,
    );
    expect(message(parseLine(line({ tools: { t: { effect: "delete" } } })))).toMatch(/policy\.tools\.t\.effect/);
  });
});
