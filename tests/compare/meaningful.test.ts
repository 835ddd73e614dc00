/**
 * The compare page's first *meaningful* divergence: where two runs acted differently, not
 * where their input text differs (every two runs differ there). On the demo agent's two
 * refund runs (recorded for real) it is the reconcile-vs-retry decision after the refund
 * timed out; seqs are read from the journals by what the scenarios do, not from the output.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { alignRuns, type CompareEvent } from "@/lib/compare";
import { runScenarios } from "@/scripts/demo-agent/scenarios";

const tmp = mkdtempSync(join(tmpdir(), "retrace-meaningful-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const read = (file: string): CompareEvent[] =>
  readFileSync(file, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l) as CompareEvent);
const clone = <T>(v: T): T => JSON.parse(JSON.stringify(v)) as T;
const calls = (run: CompareEvent[], tool: string) => run.filter((e) => e.type === "tool.call" && e.data.tool === tool);

describe("first meaningful divergence on the demo refund runs", () => {
  let reconciled: CompareEvent[];
  let retried: CompareEvent[];

  beforeAll(async () => {
    await runScenarios({
      outDir: tmp,
      dbDir: join(tmp, "banks"),
      fixedClock: true,
      scenarios: ["refund-approval", "refund-retry-no-idempotency"],
    });
    reconciled = read(join(tmp, "refund-approval.jsonl"));
    retried = read(join(tmp, "refund-retry-no-idempotency.jsonl"));
  });

  it("is the reconcile vs retry decision after the refund timed out, not the input", () => {
    const al = alignRuns(reconciled, retried);
    // the plain first difference is the run's input (another order, another text)
    expect(al.firstDivergence).toMatchObject({ aSeq: 0, bSeq: 0, reason: "run.start: input changed" });

    // what the scenarios do: both time out on issue_refund; a then asks find_payment, b calls issue_refund again
    const timedOutA = reconciled.find((e) => e.type === "tool.result" && e.data.status === "timeout")!;
    const timedOutB = retried.find((e) => e.type === "tool.result" && e.data.status === "timeout")!;
    const findPayment = calls(reconciled, "find_payment")[0];
    const retry = calls(retried, "issue_refund")[1];
    const reconcile = reconciled.find((e) => e.type === "reconcile")!;
    expect(retry).toBeDefined();

    expect(al.firstMeaningful).toMatchObject({ kind: "decision", aSeq: findPayment.seq, bSeq: retry.seq, segment: "turn-3" });
    expect(al.firstMeaningful!.reason).toBe(
      `after issue_refund timed out (a #${timedOutA.seq}, b #${timedOutB.seq}), ` +
        `run a reconciled it (find_payment #${findPayment.seq}, then reconcile #${reconcile.seq}: succeeded); ` +
        `run b retried issue_refund (#${retry.seq})`,
    );
    // the row it names is the pair it reports
    const row = al.rows[al.firstMeaningful!.row];
    expect([reconciled[row.a!].seq, retried[row.b!].seq]).toEqual([findPayment.seq, retry.seq]);
  });

  it("reads the same from the other side", () => {
    const al = alignRuns(retried, reconciled);
    expect(al.firstMeaningful?.reason).toMatch(/run a retried issue_refund .*; run b reconciled it \(find_payment/);
  });

  it("treats an argument each run took from its own data as the same, and a made-up one as a divergence", () => {
    // both runs ask lookup_order for the order named in their input: not a divergence (checked above too)
    const b = clone(reconciled);
    const refund = calls(b, "issue_refund")[0];
    (refund.data.args as Record<string, unknown>).amountCents = 123; // seen nowhere earlier in the run
    const response = b.filter((e) => e.type === "model.response" && e.seq < refund.seq).pop()!;
    const toolCall = (response.data.output as { toolCalls: Array<{ args: Record<string, unknown> }> }).toolCalls[0];
    toolCall.args.amountCents = 123;
    const al = alignRuns(reconciled, b);
    expect(al.firstMeaningful).toMatchObject({ kind: "decision", aSeq: response.seq, bSeq: response.seq });
    expect(al.firstMeaningful!.reason).toBe("the model asked for issue_refund with argument amountCents 4999 → 123");

    // without the model's part, the call itself is where it diverges, and the argument is named
    const c = clone(reconciled);
    (calls(c, "issue_refund")[0].data.args as Record<string, unknown>).amountCents = 123;
    expect(alignRuns(reconciled, c).firstMeaningful).toMatchObject({
      kind: "argument",
      aSeq: refund.seq,
      reason: "issue_refund: argument amountCents 4999 → 123",
    });
  });

  it("finds nothing meaningful when only text differs, and an outcome when a result's status does", () => {
    const b = clone(reconciled);
    for (const e of b) if (e.type === "context") e.data = { ...e.data, messages: [{ role: "user", content: "other words" }] };
    const al = alignRuns(reconciled, b);
    expect(al.firstDivergence).not.toBeNull();
    expect(al.firstMeaningful).toBeNull();

    const c = clone(reconciled);
    const lookup = c.find((e) => e.type === "tool.result")!;
    lookup.data.status = "error";
    expect(alignRuns(reconciled, c).firstMeaningful).toMatchObject({
      kind: "outcome",
      aSeq: lookup.seq,
      reason: 'tool result "ok" → "error"',
    });
  });
});
