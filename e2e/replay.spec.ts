/**
 * The replay page against the production build: reconstruct and what-if forks of the
 * example journals, provenance on every frame, jumping between divergences, a trace run
 * replayed best-effort, and the scrubber on a 10,000-event run. Every wait is on the
 * page's ready signal (`data-ready`, `data-key`), never a sleep.
 */
import fs from "node:fs";
import path from "node:path";
import type { Locator, Page } from "@playwright/test";
import { hashOf } from "../lib/canonical";
import { computeEventHash } from "../lib/journal/chain";
import type { JournalEvent } from "../lib/journal/types";
import { generateJournal } from "../scripts/bench-journal";
import { example, uniqueId } from "./fixtures/journals";
import { expect, postJournal, test } from "./fixtures/viewer";
import { SQLITE_PORT } from "./servers";

const BASE = `http://127.0.0.1:${SQLITE_PORT}`;
const SHOTS = process.env.RETRACE_SCREENSHOTS === "1";
const shot = async (page: Page, name: string) => {
  if (SHOTS) await page.screenshot({ path: path.join("docs/screenshots", name) });
};

class ReplayPage {
  readonly view: Locator;
  readonly banner: Locator;
  readonly frame: Locator;
  readonly frames: Locator;
  readonly details: Locator;
  constructor(readonly page: Page) {
    this.view = page.getByTestId("replay-view");
    this.banner = page.getByRole("region", { name: "Replay mode" });
    this.frame = page.getByTestId("frame-panel");
    this.frames = page.getByRole("listbox", { name: "Frames: recorded run and replay" });
    this.details = page.getByRole("complementary", { name: "Replay details" });
  }
  async open(runId: string, query = "") {
    await this.page.goto(`${BASE}/runs/${encodeURIComponent(runId)}/replay${query}`);
    await this.ready();
  }
  async ready(mode: "reconstruct" | "fork" = "reconstruct") {
    await expect(this.view).toHaveAttribute("data-mode", mode, { timeout: 30_000 });
    await expect(this.view).toHaveAttribute("data-ready", "true", { timeout: 30_000 });
  }
  /** Waits until the frame panel shows `seq` (the first frame of it, or the given provenance). */
  async shows(seq: number, provenance?: string) {
    await expect(this.frame).toHaveAttribute("data-seq", String(seq));
    if (provenance) await expect(this.frame).toHaveAttribute("data-provenance", provenance);
    await expect(this.frame).toHaveAttribute("data-ready", "true");
    await expect(this.frame.getByRole("heading", { level: 2 })).toContainText(`#${seq} `);
  }
  tab(name: RegExp | string) {
    return this.details.getByRole("tab", { name });
  }
  button(name: string | RegExp) {
    return this.page.getByRole("toolbar", { name: "Playback" }).getByRole("button", { name });
  }
  /** The row of the first frame with this seq. */
  row(seq: number) {
    return this.frames.getByRole("option", { name: new RegExp(`^#${seq} `) }).first();
  }
}

const open = async (page: Page) => new ReplayPage(page);

test.describe("replay page", () => {
  test("reconstruct of a clean run: zero divergences, the banner says simulated, every frame shows its provenance", async ({
    page,
    request,
    guard,
  }) => {
    const runId = uniqueId("e2e-rp-clean");
    guard.allowNavigation(`/runs/${runId}/replay`);
    await postJournal(request, BASE, example("00-refund-clean.jsonl", runId));
    const rp = await open(page);
    await rp.open(runId);
    await expect(rp.banner).toContainText("Simulated");
    await expect(rp.banner).toContainText("Reconstruct");
    await expect(rp.banner).toContainText("No tool or model is called");
    await expect(rp.banner).toContainText("Hash chain checked against the recorder's hashes");
    await expect(rp.banner).not.toContainText("Best-effort");
    await expect(rp.tab("Divergences (0)")).toBeVisible();
    await expect(rp.button("Next divergence ▷")).toBeDisabled();
    await rp.tab(/^Divergences/).click();
    await expect(rp.details.getByTestId("divergence-summary")).toHaveText("0 divergences: the recording and the reconstruction agree.");

    // every row names the provenance of its replayed frame; a write call is blocked, its result substituted
    await expect(rp.row(0)).toHaveAccessibleName(/replay recorded: run\.start/);
    await expect(rp.row(18)).toHaveAccessibleName(/^#18 tool\.call issue_refund \(write\) \| replay blocked: tool\.call/);
    await expect(rp.row(18).getByTitle(/^Blocked: a tool call the replay did not perform/)).toHaveText("⊘blocked");
    await rp.row(18).click();
    await rp.shows(18, "blocked");
    await expect(rp.frame).toContainText("Blocked: write effect not performed");
    await expect(page).toHaveURL(/[?&]event=18/);
    await page.keyboard.press("ArrowRight");
    await rp.shows(19, "recorded");
    await expect(rp.frame).toContainText("recorded result substituted");
    await shot(page, "replay-reconstruct.png");

    // a reload returns to the same frame
    await expect(page).toHaveURL(/[?&]event=19/);
    await page.reload();
    await rp.ready();
    await rp.shows(19);
  });

  test("a denial given at the gated call resolves to the decision before it, as the CLI does", async ({ page, request, guard }) => {
    const runId = uniqueId("e2e-rp-deny-at-call");
    guard.allowNavigation(`/runs/${runId}/replay`);
    await postJournal(request, BASE, example("00-refund-clean.jsonl", runId));
    const rp = await open(page);
    // the worker reads the pages before seq 18 for the approval that gated it (it holds no run)
    await page.goto(`${BASE}/runs/${runId}/replay?fork=18&override=${encodeURIComponent('{"approval":"denied"}')}`);
    await rp.ready("fork");
    const changes = rp.details.getByRole("list", { name: "Fork changes" });
    await expect(rp.tab("Changes (2)")).toHaveAttribute("aria-selected", "true");
    await expect(changes.getByRole("button").nth(0)).toHaveAccessibleName(/^seq 17 overridden: approval denied by the fork/);
    await expect(changes.getByRole("button").nth(1)).toHaveAccessibleName(/^seq 18 approval: call "t_\d+" would not be made/);
  });

  test("a fork that denies the approval: the gated call is not allowed at seq 18, later frames are stale, and the link restores it", async ({
    page,
    request,
    guard,
  }) => {
    const runId = uniqueId("e2e-rp-deny");
    guard.allowNavigation(`/runs/${runId}/replay`);
    await postJournal(request, BASE, example("00-refund-clean.jsonl", runId));
    const rp = await open(page);
    await rp.open(runId, "?event=17");
    await rp.shows(17);
    await rp.tab("Fork").click();
    const form = page.getByRole("form", { name: "What-if fork" });
    await expect(form.getByLabel("Fork at seq")).toHaveValue("17");
    await expect(form).toContainText("seq 17: approval.decision");
    await form.getByLabel("Deny the approval").check();
    await form.getByRole("button", { name: "Run what-if" }).click();
    await rp.ready("fork");
    await expect(page).toHaveURL(/[?&]fork=17&override=%7B%22approval%22%3A%22denied%22%7D/);
    await expect(rp.banner).toContainText("Simulated");
    await expect(rp.banner).toContainText("What-if fork at seq 17: approval denied");

    // what changes, each item at its seq; the fork opens at its first change
    const changes = rp.details.getByRole("list", { name: "Fork changes" });
    await expect(rp.tab("Changes (2)")).toHaveAttribute("aria-selected", "true");
    await expect(changes.getByRole("button")).toHaveCount(2);
    await expect(changes.getByRole("button").nth(0)).toHaveAccessibleName(/^seq 17 overridden: approval denied by the fork/);
    await expect(changes.getByRole("button").nth(1)).toHaveAccessibleName(
      /^seq 18 approval: call "t_\d+" would not be made: its approval is denied in the fork/,
    );
    await expect(rp.details.getByTestId("change-summary")).toContainText("stale from seq 19");
    await shot(page, "replay-fork-changes.png");
    await changes.getByRole("button").nth(1).click();
    await rp.shows(18, "blocked");
    await expect(rp.frame.getByTestId("frame-change")).toContainText('recorded "allowed" → fork "not allowed"');
    await expect(rp.row(17)).toHaveAccessibleName(/replay simulated: approval\.decision/);

    // downstream frames are stale, and said to be so: never what would have happened
    await page.keyboard.press("ArrowRight");
    await rp.shows(19, "stale");
    await expect(rp.frame).toContainText("Stale: not what would have happened.");
    await expect(rp.row(19)).toHaveAccessibleName(/replay stale:/);
    await shot(page, "replay-fork-deny.png");

    // the URL is the fork: a reload (or a shared link) replays it again
    await expect(page).toHaveURL(/[?&]event=19/);
    await page.reload();
    await rp.ready("fork");
    await rp.shows(19, "stale");
    await expect(rp.tab("Changes (2)")).toBeVisible();

    // back to the reconstruct
    await rp.tab("Fork").click();
    await page.getByRole("button", { name: "Back to reconstruct" }).click();
    await rp.ready("reconstruct");
    await expect(page).not.toHaveURL(/fork=/);
  });

  test("a fork that lowers maxSteps to 2 stops the run at seq 29, the third step.start", async ({ page, request, guard }) => {
    const runId = uniqueId("e2e-rp-steps");
    guard.allowNavigation(`/runs/${runId}/replay`);
    await postJournal(request, BASE, example("02-codefix-clean.jsonl", runId));
    const rp = await open(page);
    await rp.open(runId);
    await rp.tab("Fork").click();
    const form = page.getByRole("form", { name: "What-if fork" });
    await form.getByLabel("Fork at seq").fill("0");
    await form.getByLabel("Change the policy").check();
    await expect(form.getByLabel("maxSteps")).toHaveValue("10"); // the run's own
    await form.getByLabel("maxSteps").fill("2");
    await form.getByRole("button", { name: "Run what-if" }).click();
    await rp.ready("fork");
    await expect(page).toHaveURL(/fork=0&override=%7B%22policy%22%3A%7B%22maxSteps%22%3A2%7D%7D/);
    await expect(rp.banner).toContainText("What-if fork at seq 0: policy maxSteps = 2");

    const changes = rp.details.getByRole("list", { name: "Fork changes" });
    await expect(changes.getByRole("button")).toHaveCount(1);
    await expect(changes.getByRole("button").first()).toHaveAccessibleName(
      "seq 29 stop: the fork's maxSteps = 2 stops the run before step 3",
    );
    await expect(rp.details.getByTestId("change-summary")).toContainText("the fork's run stops at seq 29");
    await changes.getByRole("button").first().click();
    await rp.shows(29, "simulated");
    await expect(rp.frame.getByRole("heading", { level: 2 })).toContainText("#29 decision");
    await expect(rp.frame).toContainText("Simulated: the fork's policy stops the run here");
    await expect(rp.frame).toContainText("Inserted by the replay");
    await expect(rp.row(29)).toHaveAccessibleName(/^#29 \(inserted by the replay\) \| replay simulated: decision/);
    await page.keyboard.press("ArrowRight");
    await rp.shows(29, "stale");
    await expect(rp.frame.getByRole("heading", { level: 2 })).toContainText("#29 step.start");
    await expect(rp.frame).toContainText("not reached: the fork's run stopped before it");
    await shot(page, "replay-fork-max-steps.png");
  });

  test("the fork form says what is wrong with an override, and a broken fork link is an error, not a crash", async ({
    page,
    request,
    guard,
  }) => {
    const runId = uniqueId("e2e-rp-errors");
    guard.allowNavigation(`/runs/${runId}/replay`);
    await postJournal(request, BASE, example("00-refund-clean.jsonl", runId));
    const rp = await open(page);
    await rp.open(runId, "?event=9");
    await rp.shows(9);
    await rp.tab("Fork").click();
    const form = page.getByRole("form", { name: "What-if fork" });
    await form.getByLabel("Edit the tool result").check();
    const editor = form.getByLabel(/Tool result fields/);
    await expect(editor).toHaveValue(/"status": "ok"/); // prefilled from the recorded result
    await editor.fill('{"status": "error",');
    await form.getByRole("button", { name: "Run what-if" }).click();
    await expect(form.getByRole("alert")).toContainText("not valid JSON:");
    await expect(editor).toHaveAttribute("aria-invalid", "true");
    await editor.fill('{"status": "maybe"}');
    await form.getByRole("button", { name: "Run what-if" }).click();
    await expect(form.getByRole("alert")).toHaveText("toolResult.status must be one of ok, error, timeout, unknown");
    await editor.fill('{"status": "error", "error": "card declined"}');
    await form.getByRole("button", { name: "Run what-if" }).click();
    await rp.ready("fork");
    await expect(rp.details.getByRole("list", { name: "Fork changes" }).getByRole("button").first()).toHaveAccessibleName(
      /^seq 9 overridden: tool result replaced by the fork/,
    );

    // an override the engine refuses at that seq, from a link
    await page.goto(`${BASE}/runs/${runId}/replay?fork=3&override=${encodeURIComponent('{"approval":"denied"}')}`);
    await rp.ready("reconstruct");
    await expect(rp.banner.getByRole("alert")).toContainText(
      "The fork asked for cannot be applied: an approval override needs an approval.decision",
    );
    await page.goto(`${BASE}/runs/${runId}/replay?fork=3&override=${encodeURIComponent('{"bogus":1}')}`);
    await rp.ready("reconstruct");
    await expect(rp.banner.getByRole("alert")).toContainText("unknown override field bogus");
  });

  test("a run whose state held a secret replays without divergences: the redacted state is not checked against the recorder's hashes", async ({
    page,
    request,
    guard,
  }) => {
    const runId = uniqueId("e2e-rp-secret-state");
    guard.allowNavigation(`/runs/${runId}/replay`);
    const raw = { apiKey: "sk-proj-" + "Z8y7X6w5V4u3T2s1R0q9P8o7", n: 0 };
    const ts = "2026-11-07T11:00:00.000Z";
    const ev = (seq: number, type: string, data: Record<string, unknown>) => ({ run: runId, seq, ts, type, data });
    await postJournal(request, BASE, [
      ev(0, "run.start", { workflow: { name: "w", version: "1" }, versions: { prompts: {}, policies: {}, tools: {}, models: {} } }),
      ev(1, "state", { set: raw, hash: hashOf(raw) }),
      ev(2, "state", { patch: [{ op: "replace", path: "/n", value: 1 }], hash: hashOf({ ...raw, n: 1 }) }),
      ev(3, "approval.decision", { approval: "a1", decision: "approved", by: "u1", stateHash: hashOf({ ...raw, n: 1 }) }),
      ev(4, "run.end", { status: "succeeded" }),
    ]);
    const rp = await open(page);
    await rp.open(runId);
    await expect(rp.tab("Divergences (0)")).toBeVisible();
    await rp.row(2).click();
    await rp.shows(2);
    await expect(rp.frame).not.toContainText(raw.apiKey);
  });

  test("jump to the next divergence on a run whose state hash does not match", async ({ page, request, guard }) => {
    const runId = uniqueId("e2e-rp-mismatch");
    guard.allowNavigation(`/runs/${runId}/replay`);
    await postJournal(request, BASE, example("16-refund-state.hash-mismatch.jsonl", runId));
    const rp = await open(page);
    await rp.open(runId);
    await expect(rp.tab("Divergences (4)")).toBeVisible();
    await rp.button("Next divergence ▷").click();
    await rp.shows(10);
    await expect(rp.frame.getByTestId("frame-divergence")).toContainText(
      "Divergence (state-hash): the rebuilt state does not have the recorded hash",
    );
    await expect(rp.row(10)).toHaveAccessibleName(/1 divergence$/);
    // the approval at 17 is judged against the state in force (the recorded hash), so it
    // is not stale; the replay notes that the rebuilt state differs, as following from 10
    await rp.button("Next divergence ▷").click();
    await rp.shows(17);
    await expect(rp.frame.getByTestId("frame-divergence")).toContainText("follows from seq 10");
    await page.keyboard.press("n");
    await rp.shows(20);
    await page.keyboard.press("Shift+N");
    await rp.shows(17);
    await rp.button("◁ Previous divergence").click();
    await rp.shows(10);
    await rp.tab(/^Divergences/).click();
    await expect(rp.details.getByTestId("divergence-summary")).toHaveText("4 divergences, first meaningful at seq 10");
    await rp.details
      .getByRole("list", { name: "Divergences" })
      .getByRole("button", { name: /^seq 21 state-hash/ })
      .click();
    await rp.shows(21);

    // playback stops at the next divergence
    await page.keyboard.press("Home");
    await rp.shows(0);
    await page.getByRole("toolbar", { name: "Playback" }).getByLabel("Playback speed").selectOption("60");
    await rp.button("Play").click();
    await rp.shows(10);
    await expect(rp.button("Play")).toBeVisible();
  });

  test("a run imported from a trace is replayed best-effort, and says so", async ({ page, request, guard }) => {
    const body = fs.readFileSync("tests/fixtures/corpus/otel-genai/any-agent-google-adk.json");
    const res = await request.post(`${BASE}/api/imports?name=any-agent-google-adk.json`, {
      data: body,
      headers: { "content-type": "application/json" },
    });
    expect(res.status(), await res.text()).toBeLessThan(300);
    const runId = ((await res.json()) as { runs: Array<{ run: string }> }).runs[0].run;
    guard.allowNavigation(`/runs/${runId}/replay`);
    const rp = await open(page);
    await rp.open(runId);
    await expect(rp.banner).toContainText("Simulated");
    await expect(rp.banner.getByRole("note")).toContainText("Best-effort replay (trace): the run was imported from a trace");
    await expect(rp.banner).toContainText("as far as the journal records them");
    await expect(rp.banner).toContainText("The journal carries no hash chain to check.");
    await shot(page, "replay-trace.png");
  });

  // how fast each frame shows is scripts/bench-viewer.ts's figure; this checks what the user sees
  test("scrubbing a 10,000-event run shows each frame it lands on and keeps the list virtualized", async ({ page, request, guard }) => {
    test.setTimeout(180_000);
    const runId = uniqueId("e2e-rp-10k");
    guard.allowNavigation(`/runs/${runId}/replay`);
    await postJournal(request, BASE, generateJournal(10_000, runId));
    const rp = await open(page);
    await rp.open(runId);
    await expect(page.getByTestId("playhead")).toHaveText("frame 1 of 10,000 · seq 0");

    // jumps as a user's scrub makes them: set the range, fire input, wait until that frame is shown
    const targets = Array.from({ length: 40 }, (_v, i) => (i * 2477 + 613) % 10_000);
    const slider = page.getByLabel("Scrub through frames");
    for (const t of targets) {
      await slider.evaluate((input: HTMLInputElement, v) => {
        input.value = String(v);
        input.dispatchEvent(new Event("input", { bubbles: true }));
      }, t);
      await expect(rp.frame).toHaveAttribute("data-frame", String(t));
      await expect(rp.frame).toHaveAttribute("data-ready", "true");
    }

    // a drag across the whole range with the mouse ends on the last frames
    const box = (await slider.boundingBox())!;
    const y = box.y + box.height / 2;
    await page.mouse.move(box.x + 8, y);
    await page.mouse.down();
    for (let i = 1; i <= 60; i++) await page.mouse.move(box.x + 8 + ((box.width - 16) * i) / 60, y);
    await page.mouse.up();
    const last = await slider.inputValue();
    expect(Number(last)).toBeGreaterThan(9_900);
    await expect(rp.frame).toHaveAttribute("data-frame", last);
    await expect(rp.frame).toHaveAttribute("data-ready", "true");
    expect(await rp.frames.getByRole("option").count()).toBeLessThan(80);
  });

  test("a long run streams in: its first frames step while later pages are still on the way, then the fold completes", async ({
    page,
    request,
    guard,
  }) => {
    test.setTimeout(120_000);
    const runId = uniqueId("e2e-rp-stream");
    guard.allowNavigation(`/runs/${runId}/replay`);
    await postJournal(request, BASE, generateJournal(6_000, runId));
    // the first page passes; every later one waits until the test lets it through
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let later = 0;
    await page.route(/\/api\/runs\/[^/]+\/events\?/, async (route) => {
      if (!route.request().url().includes("after=-1")) {
        later++;
        await held;
      }
      await route.continue();
    });
    const rp = await open(page);
    await page.goto(`${BASE}/runs/${encodeURIComponent(runId)}/replay`);
    await expect(rp.view).toHaveAttribute("data-phase", "streaming", { timeout: 30_000 });
    const progress = page.getByTestId("replay-progress");
    await expect(progress).toContainText("1,000 of 6,000 events");
    await expect(page.getByTestId("playhead")).toHaveText("frame 1 of 1,000 · seq 0");
    await rp.shows(0);
    // step through what has arrived
    await page.keyboard.press("j");
    await rp.shows(1);
    const slider = page.getByLabel("Scrub through frames");
    const scrub = (to: number) =>
      slider.evaluate((input: HTMLInputElement, v) => {
        input.value = String(v);
        input.dispatchEvent(new Event("input", { bubbles: true }));
      }, to);
    await scrub(500);
    await rp.shows(500);
    expect(later).toBeGreaterThan(0);
    await expect(rp.view).toHaveAttribute("data-ready", "false");

    release();
    await rp.ready();
    await expect(progress).toHaveCount(0);
    await expect(page.getByTestId("playhead")).toHaveText("frame 501 of 6,000 · seq 500");
    await expect(rp.banner).toContainText("6,000 events folded in");
    await scrub(5_999);
    await rp.shows(5_999);
  });

  test("a secret redacted on a later page switches the replay to Retrace's chain and folds again: no false divergence", async ({
    page,
    request,
    guard,
  }) => {
    test.setTimeout(120_000);
    const runId = uniqueId("e2e-rp-late-secret");
    guard.allowNavigation(`/runs/${runId}/replay`);
    const events = generateJournal(2_400, runId)
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as JournalEvent);
    // a secret the recorder hashed: ingest redacts it, so the recorder's chain cannot verify from there on
    events[1_500].data = { ...events[1_500].data, apiKey: "sk-proj-" + "Q1w2E3r4T5y6U7i8O9p0A1s2" };
    let prev = "";
    for (const e of events) {
      const { hash: _old, ...rest } = e;
      void _old;
      e.hash = computeEventHash(prev, rest as JournalEvent);
      prev = e.hash;
    }
    await postJournal(request, BASE, events);
    const rp = await open(page);
    await rp.open(runId);
    await expect(rp.tab("Divergences (0)")).toBeVisible();
    await expect(rp.banner).toContainText("Retrace's own chain over the stored events");
    await expect(page.getByTestId("playhead")).toContainText("of 2,400");
  });
});
