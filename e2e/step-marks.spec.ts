/**
 * `n` steps through failures and findings alike (issue 32): a run with failed tool results
 * that are not findings and a finding that is not a failure; `n` from the first event visits
 * each, in seq order, and stops at the last; `N` and `p` walk back. The keyboard help says so.
 */
import type { JournalEvent } from "../lib/journal/types";
import { errorEvents } from "../lib/semantics";
import { SQLITE_PORT } from "./servers";
import { example, ndjson, rechain, uniqueId, type Ev } from "./fixtures/journals";
import { expect, postJournal, RunPage, test } from "./fixtures/viewer";

const BASE = `http://127.0.0.1:${SQLITE_PORT}`;
const RUN = uniqueId("step-marks");

/** The booking retried after a timeout (an error finding), with its flight search failing too (a failure, no finding). */
function journal(): Ev[] {
  return rechain(
    example("14-booking-effect.retry-after-unknown.jsonl", RUN).map((e) => {
      if (e.type !== "tool.result" || e.seq !== 9) return e;
      const { result: _result, ...data } = e.data;
      void _result;
      return { ...e, data: { ...data, status: "error", error: { message: "upstream 503" } } };
    }),
  );
}

let expected: number[] = [];

test.beforeAll(async ({ request }) => {
  const events = journal();
  await postJournal(request, BASE, ndjson(events));
  // failed events as the format counts them (lib/semantics), computed from the journal sent
  const failed = errorEvents(events as unknown as JournalEvent[]);
  const failures = events.filter((_, i) => failed[i]).map((e) => e.seq);
  const detail = (await (await request.get(`${BASE}/api/runs/${encodeURIComponent(RUN)}`)).json()) as { findings: { seq: number }[] };
  const findings = detail.findings.map((f) => f.seq);
  // the run has both kinds, and failures that are not findings
  expect(failures).toContain(9);
  expect(findings.length).toBeGreaterThan(0);
  expect(findings).not.toContain(9);
  expected = [...new Set([...failures, ...findings])].sort((a, b) => a - b);
});

test("n steps through failures and findings alike; N and p walk back; the help says so", async ({ page, guard }) => {
  guard.allowNavigation(BASE);
  const rp = new RunPage(page);
  await rp.open(BASE, RUN, "?event=0");
  await rp.shows(0);
  for (const seq of expected) {
    await page.keyboard.press("n");
    await rp.shows(seq);
  }
  // at the last mark `n` stays
  await page.keyboard.press("n");
  await rp.shows(expected[expected.length - 1]);
  await expect(page).toHaveURL(new RegExp(`[?&]event=${expected[expected.length - 1]}\\b`));
  // back, alternating N and p
  for (let i = expected.length - 2; i >= 0; i--) {
    await page.keyboard.press(i % 2 === 0 ? "N" : "p");
    await rp.shows(expected[i]);
  }

  await page.keyboard.press("?");
  const dialog = page.getByRole("dialog", { name: "Keyboard shortcuts" });
  await expect(dialog.getByRole("row", { name: /^n next failure or finding$/ })).toBeVisible();
  await expect(dialog.getByRole("row", { name: /^N \(shift\+n\) \/ p previous failure or finding$/ })).toBeVisible();
  await page.keyboard.press("Escape");
  await expect(dialog).toBeHidden();
  if (process.env.SHOTS_DIR) {
    for (const [w, h] of [
      [1440, 900],
      [1024, 768],
    ] as const) {
      await page.setViewportSize({ width: w, height: h });
      await rp.open(BASE, RUN, "?event=0");
      await page.keyboard.press("n");
      await page.keyboard.press("n");
      await rp.shows(expected[1]);
      await page.screenshot({ path: `${process.env.SHOTS_DIR}/run-stepping-n-${w}x${h}.png` });
    }
  }
});
