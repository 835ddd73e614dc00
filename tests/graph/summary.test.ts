import { describe, expect, it } from "vitest";
import { appendSummary, decodeSummary, encodeSummary, summaryRowsFromEvents } from "@/lib/graph";
import { readExample } from "./helpers";

describe("columnar summary", () => {
  it("round-trips every column of the refund example through the wire form", () => {
    const rows = summaryRowsFromEvents(readExample("00-refund-clean.jsonl"));
    const dto = encodeSummary("demo-refund-4185", rows);
    expect(dto.seq).toBeNull(); // contiguous seqs travel as seqFrom only
    const s = decodeSummary(JSON.parse(JSON.stringify(dto)));
    expect(s.n).toBe(rows.length);
    rows.forEach((r, i) => {
      expect(s.seq[i]).toBe(r.seq);
      expect(s.tsMs[i]).toBe(r.tsMs);
      expect(s.type[i]).toBe(r.type);
      expect(s.step[i]).toBe(r.step);
      expect(s.parent[i]).toBe(r.parent ?? -1);
      expect(s.call[i]).toBe(r.call);
      expect(s.name[i]).toBe(r.name);
      expect(s.status[i]).toBe(r.status);
      expect(Number.isNaN(s.latencyMs[i]) ? null : s.latencyMs[i]).toBe(r.latencyMs);
      expect(Number.isNaN(s.tokens[i]) ? null : s.tokens[i]).toBe(r.tokens);
    });
  });

  it("keeps explicit seqs when a run has a gap", () => {
    const rows = summaryRowsFromEvents(readExample("03-codefix-journal.gap.jsonl"));
    const dto = encodeSummary("gap", rows);
    expect(dto.seq).not.toBeNull();
    expect(Array.from(decodeSummary(dto).seq)).toEqual(rows.map((r) => r.seq));
  });

  it("appending a live batch drops rows already held and keeps seq order", () => {
    const rows = summaryRowsFromEvents(readExample("00-refund-clean.jsonl"));
    const a = decodeSummary(encodeSummary("r", rows.slice(0, 10)));
    const b = decodeSummary(encodeSummary("r", rows.slice(8, 15)));
    const merged = appendSummary(a, b);
    expect(Array.from(merged.seq)).toEqual(rows.slice(0, 15).map((r) => r.seq));
    expect(merged.type[14]).toBe(rows[14].type);
    expect(appendSummary(merged, a)).toBe(merged);
  });
});
