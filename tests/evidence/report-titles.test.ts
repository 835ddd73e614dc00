/**
 * The bundle's report.html says what the run page says (issue 32): findings and notes on
 * findings by the rule's title (lib/analyze `ruleText`, the run page's), the id beside it;
 * the timeline's failure marks on the failed events only (an error result, not an ok one),
 * as lib/semantics counts failures.
 */
import { describe, expect, it } from "vitest";
import { ruleText } from "@/lib/analyze";
import { buildBundle } from "@/lib/evidence";
import { unpackTarGz } from "@/lib/evidence/archive";
import { newPrivateKeyPem, signerFromPem } from "@/lib/evidence/signer";
import { sampleRun } from "./fixtures";

async function reportOf(run: ReturnType<typeof sampleRun>): Promise<string> {
  const bytes = await buildBundle([run], [], {
    profile: "secrets",
    exporter: "user:rita",
    exportedAt: new Date("2026-12-02T09:00:00.000Z"),
    retraceVersion: "test",
    signer: signerFromPem(newPrivateKeyPem()),
  });
  const report = (await unpackTarGz(bytes)).find((m) => m.path === "report.html")!;
  return Buffer.from(report.bytes).toString("utf8");
}

/** The timeline row of `seq` (its id ends with the seq) and whether its bar is marked failed. */
function rowMarked(html: string, seq: number): boolean {
  const row = html.match(new RegExp(`<tr id="r\\d+-e${seq}"[^>]*>[\\s\\S]*?</tr>`));
  expect(row, `timeline row ${seq}`).not.toBeNull();
  return /class="bar [^"]*\berr\b/.test(row![0]);
}

describe("report.html", () => {
  it("names findings and notes on findings by the run page's rule title, with the id beside it", async () => {
    const html = await reportOf(sampleRun());
    const title = ruleText("tool.partial").title;
    // the fixture's finding is tool.partial, a rule the run page titles in words
    expect(title).not.toBe("tool.partial");
    const findings = html.slice(
      html.indexOf('<table class="findings">'),
      html.indexOf("</table>", html.indexOf('<table class="findings">')),
    );
    expect(findings).toContain(`${title} <code class="rule-id">tool.partial</code>`);
    expect(html).toContain(`finding “${title}” at`);
  });

  it("marks failed the error result and not the ok ones", async () => {
    const run = sampleRun();
    const last = Math.max(...run.events.map((e) => Number(e.seq)));
    const ts = String(run.events[run.events.length - 1].ts);
    // one more call whose result is an error, before the run's end
    run.events.splice(
      run.events.length - 1,
      0,
      { run: run.id, seq: last, ts, type: "tool.call", step: "s1", data: { call: "c9", tool: "lookup", args: {}, effect: "read" } },
      { run: run.id, seq: last + 1, ts, type: "tool.result", step: "s1", data: { call: "c9", status: "error", error: { message: "503" } } },
    );
    run.events[run.events.length - 1] = { ...run.events[run.events.length - 1], seq: last + 2 };
    const html = await reportOf(run);
    expect(rowMarked(html, last + 1)).toBe(true);
    expect(rowMarked(html, last)).toBe(false);
    // the fixture's ok (partial) result at 5 is a finding, not a failure
    expect(rowMarked(html, 5)).toBe(false);
  });
});
