import fs from "node:fs";
import { hashOf } from "../lib/canonical";
import { SERVERS, SQLITE_PORT } from "./servers";
import { example, hostileJournal, HOSTILE, ndjson, rechain, uniqueId, type Ev } from "./fixtures/journals";
import { appendEvents, expect, postJournal, resizeTo, test } from "./fixtures/viewer";

const BASE = `http://127.0.0.1:${SQLITE_PORT}`;

test.describe("runs list", () => {
  test("with nothing to show, tells how to send a journal with this server's origin", async ({ page, guard }) => {
    guard.allowNavigation("/?q=");
    await page.goto(`/?q=${uniqueId("no-such-run")}`);
    await expect(page.getByRole("heading", { name: "No runs match these filters" })).toBeVisible();
    await expect(page.getByLabel("curl command")).toHaveText(
      `curl -X POST --data-binary @run.jsonl -H 'content-type: application/x-ndjson' ${BASE}/api/journals`,
    );
    await expect(page.getByLabel("CLI command")).toHaveText("npm run -s retrace -- import run.jsonl");
  });

  test("uploads a journal with progress and a per-line error report, then lists and filters it", async ({ page, guard }) => {
    guard.allowNavigation(BASE);
    const runId = uniqueId("e2e-upload");
    await page.goto("/");
    const chooser = page.waitForEvent("filechooser");
    await page.getByRole("button", { name: "Upload runs" }).click();
    await (
      await chooser
    ).setFiles({
      name: "refund.jsonl",
      mimeType: "application/x-ndjson",
      buffer: Buffer.from(ndjson(example("00-refund-clean.jsonl", runId))),
    });
    const report = page.getByRole("region", { name: "Upload report" });
    await expect(report.getByRole("progressbar", { name: "Upload of refund.jsonl" })).toHaveAttribute("value", "1");
    await expect(report.getByRole("status").filter({ hasText: "Stored." })).toHaveAttribute("title", "HTTP 201");
    await expect(report.getByRole("table", { name: "Runs in refund.jsonl" }).getByRole("link", { name: runId })).toBeVisible();

    // a file with bad lines: each is reported with its line number, nothing of that run is stored
    // (the browser logs the answer's HTTP 400 itself)
    guard.allowConsoleError(/status of 400/);
    const bad = uniqueId("e2e-bad");
    const lines = `${JSON.stringify({ run: bad, seq: 0, ts: "2026-11-07T11:00:00.000Z", type: "note", data: { text: "ok" } })}\n{"run":"${bad}","seq":"one"}\nnot json\n`;
    const chooser2 = page.waitForEvent("filechooser");
    await page.getByRole("button", { name: "Upload runs" }).click();
    await (await chooser2).setFiles({ name: "bad.jsonl", mimeType: "application/x-ndjson", buffer: Buffer.from(lines) });
    const errors = report.getByRole("table", { name: "Errors in bad.jsonl" });
    await expect(errors.getByRole("row")).toHaveCount(3);
    await expect(errors.getByRole("row").nth(1).getByRole("cell").first()).toHaveText("2");
    await expect(errors.getByRole("row").nth(2).getByRole("cell").first()).toHaveText("3");

    // a file in no known format: one error that says so, and nothing claims it was imported
    guard.allowConsoleError(/status of 415/);
    const chooser3 = page.waitForEvent("filechooser");
    await page.getByRole("button", { name: "Upload runs" }).click();
    await (await chooser3).setFiles({ name: "notes.json", mimeType: "application/json", buffer: Buffer.from('[{"foo":1},{"foo":2}]') });
    // a sentence, the status code in its title; the failed file's bar is marked failed
    const notes = report.getByRole("status").filter({ hasText: "format was not recognised" });
    await expect(notes).toHaveText(/^The file's format was not recognised: it looks like .*\.$/);
    await expect(notes).toHaveAttribute("title", "HTTP 415");
    await expect(report.getByRole("progressbar", { name: "Upload of notes.json" })).toHaveClass(/failed/);
    await expect(report).not.toContainText("Imported as");
    await expect(report.getByRole("table", { name: "Errors in notes.json" })).toHaveCount(0);

    // the list shows it; the free-text filter goes into the URL
    await page
      .getByRole("searchbox", { name: /Search/ })
      .first()
      .fill(runId);
    await expect(page).toHaveURL(new RegExp(`q=${runId}`));
    const table = page.getByRole("table", { name: "Runs", exact: true });
    await expect(table.getByRole("row")).toHaveCount(2);
    const row = table.getByRole("row").nth(1);
    await expect(row).toContainText("support-refund");
    await expect(row).toContainText("2026.11.12");
    await expect(row).toContainText("verified");
    await expect(row).toContainText("succeeded");
    await page.reload();
    await expect(table.getByRole("link", { name: runId })).toBeVisible();
  });
});

test.describe("run page", () => {
  test("an approval that waited ten hours: the timeline draws the wait short and says how long it was", async ({
    page,
    request,
    guard,
    runPage: rp,
  }) => {
    const runId = uniqueId("e2e-idle");
    guard.allowNavigation(BASE);
    // the reviewer decided ten hours after the request (seq 16 → 17)
    const later = (e: Ev) => (e.seq >= 17 ? { ...e, ts: new Date(Date.parse(e.ts) + 10 * 3_600_000).toISOString() } : e);
    await postJournal(request, BASE, rechain(example("00-refund-clean.jsonl", runId).map(later)));
    await rp.open(BASE, runId, "?event=17");
    await rp.shows(17);
    const timeline = page.getByRole("img", { name: /^Timeline of \d+ events over 10 h \d+ m \(10 h 0 m idle not drawn to scale\)/ });
    await expect(timeline).toHaveAttribute("data-idle-gaps", "1");
    for (const [w, h] of [
      [1440, 900],
      [1024, 768],
    ] as const) {
      await resizeTo(page, w, h);
      await page.screenshot({ path: `test-results/shots/timeline-idle-${w}.png` });
    }
  });

  test("open from the list, select with mouse and keyboard, and each pane shows its event", async ({
    page,
    request,
    guard,
    runPage: rp,
  }) => {
    const runId = uniqueId("e2e-refund");
    guard.allowNavigation(BASE);
    await postJournal(request, BASE, example("00-refund-clean.jsonl", runId));
    await page.goto(`/?q=${runId}`);
    await page.getByRole("link", { name: runId }).click();
    await expect(page).toHaveURL(new RegExp(`/runs/${runId}`));
    await rp.ready();
    await expect(page.getByRole("heading", { level: 1 })).toHaveText("support-refund@2026.11.12");
    await expect(page.getByText("chain verified")).toBeVisible();
    await expect(page.getByText("replayable", { exact: true })).toBeVisible();

    // mouse: an event in the list, then a node in the graph
    await rp.option("#16 approval.request ap_3").click();
    await rp.shows(16);
    await rp.node(/^#18 tool\.call issue_refund/).click();
    await rp.shows(18);
    await expect(rp.option("#18 tool.call issue_refund")).toHaveAttribute("aria-selected", "true");
    const tool = rp.panel();
    await expect(tool).toContainText("issue_refund");
    await expect(tool).toContainText("refund-ch_3782609"); // idempotency key
    await expect(tool).toContainText("payments-production"); // target
    await expect(tool).toContainText("re_4d54f46a69"); // external id, from the paired tool.result
    await expect(tool.getByText("ok", { exact: true })).toBeVisible();

    // keyboard: k back to the approval decision; the approval pane shows the fold's verdict on its state
    await page.keyboard.press("k");
    await rp.shows(17);
    await expect(rp.panel()).toContainText("The approver's state hash matches the run state at the decision.");
    // and the fold's verdict on the call the approval gates, as the rules read it
    await expect(rp.panel().getByTestId("approval-verdict")).toHaveText(
      "✓ Call #18 issue_refund was approved before it was made (the policy requires it).",
    );
    await expect(rp.panel()).toContainText("reviewer@example.com");
    await page.keyboard.press("j");
    await page.keyboard.press("ArrowDown");
    await rp.shows(19);
    await page.keyboard.press("[");
    await rp.shows(3);
    await page.keyboard.press("]");
    await rp.shows(12);

    // model pane: usage, latency, requested tool calls; context pane: instructions against the policy
    await rp.option("#7 model.response").click();
    await rp.shows(7);
    await expect(rp.panel()).toContainText("1,383");
    await expect(rp.panel()).toContainText("387 ms");
    await expect(rp.panel()).toContainText("lookup_order");
    await rp.tab("Context").click();
    const instructions = rp.panel().getByRole("table", { name: "Instructions" });
    await expect(instructions.getByRole("row", { name: /refund-policy/ })).toContainText("✓ included");
    await expect(rp.panel()).toContainText("Duplicate charges are refunded in full");
    await expect(rp.panel()).toContainText("kb-17");

    // state pane: the change as text and the hash check
    await rp.option("#10 state").click();
    await rp.shows(10);
    await expect(rp.panel().getByLabel("State diff")).toContainText("~ /order: null → {");
    await expect(rp.panel()).toContainText("✓ The rebuilt state matches the recorded hash.");

    // "/" searches within the run; Enter goes to the match
    await page.keyboard.press("/");
    await expect(page.getByRole("searchbox", { name: "Search this run" })).toBeFocused();
    await page.keyboard.type("issue_refund");
    // the tool name's column matches (#18, #19) and the payload matches from the server (#0, #15)
    await expect(rp.events.getByRole("option")).toHaveCount(4);
    await expect(rp.option("#15 model.response")).toBeVisible();
    await page.keyboard.press("Enter");
    await rp.shows(15);
    await page.keyboard.press("Enter");
    await rp.shows(18);

    // charts draw per step
    await page.getByRole("tab", { name: "Charts" }).click();
    await expect(page.getByLabel("Tokens per step")).toBeVisible();
  });

  test("a failing run: its findings jump to their events, marked in the graph", async ({ page, request, guard, runPage: rp }) => {
    const runId = uniqueId("e2e-stale");
    guard.allowNavigation(BASE);
    await postJournal(request, BASE, example("10-refund-approval.stale-state.jsonl", runId));
    await rp.open(BASE, runId);
    await page.getByRole("tab", { name: /Findings \(1\)/ }).click();
    await page
      .getByRole("list", { name: "Findings" })
      .getByRole("button", { name: /approval\.stale-state/ })
      .click();
    const finding = (await request.get(`${BASE}/api/runs/${runId}`).then((r) => r.json())).findings[0] as { seq: number };
    await rp.shows(finding.seq);
    await expect(rp.inspector.getByRole("note")).toContainText("approval.stale-state");
    await expect(rp.panel()).toContainText("the approver looked at a stale state");
    await expect(rp.node(new RegExp(`^#${finding.seq} approval\\.decision.*\\(1 finding\\)`))).toBeVisible();
  });

  test("a refund made without the required approval: the approval pane shows the rule's verdict on the call", async ({
    page,
    request,
    guard,
    runPage: rp,
  }) => {
    const runId = uniqueId("e2e-unapproved");
    guard.allowNavigation(BASE);
    await postJournal(request, BASE, example("09-refund-approval.missing.jsonl", runId));
    await rp.open(BASE, runId);
    const finding = (await request.get(`${BASE}/api/runs/${runId}`).then((r) => r.json())).findings.find(
      (f: { rule: string }) => f.rule === "approval.missing",
    ) as { seq: number };
    await rp.option(`#${finding.seq} tool.call issue_refund`).click();
    await rp.shows(finding.seq);
    await rp.tab("Approval").click();
    await expect(rp.panel().getByTestId("approval-verdict")).toHaveText(
      `✗ approval.missing: the policy requires approval for issue_refund, and call #${finding.seq} issue_refund was never submitted for approval.`,
    );
    await expect(page.getByTestId("approval-verdict")).toHaveClass(/bad/);
  });

  test("the graph's ELK layout comes from the layout worker and moves the nodes", async ({ page, request, guard, runPage: rp }) => {
    const runId = uniqueId("e2e-elk");
    guard.allowNavigation(BASE);
    await postJournal(request, BASE, example("00-refund-clean.jsonl", runId));
    await rp.open(BASE, runId, "?event=18");
    await rp.shows(18);
    // React Flow places each node with a transform; the flow node wraps the labelled button
    const place = () =>
      rp.node(/^#18 tool\.call issue_refund/).evaluate((el) => (el.closest(".react-flow__node") as HTMLElement).style.transform);
    await expect(rp.node(/^#18 tool\.call issue_refund/)).toBeVisible();
    const before = await place();
    await page.getByLabel("Layout engine").selectOption("elk");
    await expect.poll(place).not.toBe(before);
    await expect(rp.node(/^#18 tool\.call issue_refund/)).toBeVisible();
    await expect(page.getByText(/layout failed/)).toHaveCount(0);
  });

  test("?event=SEQ deep links restore the selection on reload", async ({ page, request, guard, runPage: rp }) => {
    const runId = uniqueId("e2e-deep");
    guard.allowNavigation(BASE);
    await postJournal(request, BASE, example("00-refund-clean.jsonl", runId));
    await rp.open(BASE, runId, "?event=21");
    await rp.shows(21);
    await expect(rp.option("#21 checkpoint cp_1")).toHaveAttribute("aria-selected", "true");
    await page.keyboard.press("j");
    await rp.shows(22);
    await expect(page).toHaveURL(/event=22/);
    await page.reload();
    await rp.ready();
    await rp.shows(22);
  });

  test("a state that held a secret: the state pane shows the placeholder and does not judge its hash", async ({
    request,
    guard,
    runPage: rp,
  }) => {
    const runId = uniqueId("e2e-secret-state");
    guard.allowNavigation(BASE);
    const raw = { apiKey: "sk-proj-" + "C3d4E5f6G7h8J9k0L1m2N3p4", n: 0 };
    const ev = (seq: number, type: string, data: Record<string, unknown>): Ev => ({
      run: runId,
      seq,
      ts: "2026-11-07T11:00:00.000Z",
      type,
      data,
    });
    await postJournal(request, BASE, [
      ev(0, "run.start", {}),
      ev(1, "state", { set: raw, hash: hashOf(raw) }),
      ev(2, "run.end", { status: "succeeded" }),
    ]);
    await rp.open(BASE, runId, "?event=1");
    await rp.shows(1);
    await expect(rp.panel()).toContainText("[redacted:");
    await expect(rp.panel()).not.toContainText(raw.apiKey);
    await expect(rp.panel().getByRole("status")).toHaveText(
      "The state holds secrets replaced at ingest, so its hash cannot be checked here: the recorder hashed the original.",
    );
  });

  test("a source without times (a SWE-agent trajectory) shows its order, never a 1970 start, a duration or offsets", async ({
    page,
    request,
    guard,
    runPage: rp,
  }) => {
    guard.allowNavigation(BASE);
    const traj = fs.readFileSync("tests/fixtures/corpus/swe-agent/marshmallow-1867-function-calling.traj");
    const res = await request.post(`${BASE}/api/imports?name=marshmallow.traj`, {
      data: traj,
      headers: { "content-type": "application/json" },
    });
    expect(res.status(), await res.text()).toBeLessThan(300);
    const runId = ((await res.json()) as { runs: Array<{ run: string }> }).runs[0].run;
    await rp.open(BASE, runId, "?event=3");
    await rp.shows(3);
    await expect(rp.view.getByTitle(/source recorded no times/).first()).toHaveText("times not recorded");
    await expect(rp.inspector.getByText("no time recorded")).toBeVisible();
    await expect(rp.graph.getByRole("img", { name: /in recorded order \(the source has no times\)/ })).toBeVisible();
    await expect(rp.view).not.toContainText("1970");
    await page.goto(`${BASE}/?q=${encodeURIComponent(runId)}`);
    const row = page.getByRole("table", { name: "Runs", exact: true }).getByRole("row").nth(1);
    await expect(row).toContainText("not recorded");
    await expect(row).not.toContainText("1970");
  });
});

for (const { name, base } of SERVERS) {
  test(`a live run on ${name} updates as events stream in and follows its tail`, async ({ page, request, guard, runPage: rp }) => {
    guard.allowNavigation(base);
    const runId = uniqueId(`e2e-live-${name}`);
    const ev = (seq: number, type: string, data: Record<string, unknown>, step?: string): Ev => ({
      run: runId,
      seq,
      ts: new Date(Date.parse("2026-11-07T11:00:00Z") + seq * 500).toISOString(),
      type,
      data,
      ...(step ? { step } : {}),
    });
    await appendEvents(request, base, runId, [
      ev(0, "run.start", { workflow: { name: "live-demo", version: "1" }, environment: "test" }),
      ev(1, "step.start", { name: "work" }, "s1"),
    ]);
    await rp.open(base, runId);
    await expect(page.getByText("live", { exact: true }).first()).toBeVisible();
    await rp.shows(1);

    // events arrive: the page shows them without a reload and keeps the newest selected
    for (let seq = 2; seq < 8; seq++) {
      await appendEvents(request, base, runId, [ev(seq, "note", { text: `progress ${seq}` }, "s1")]);
    }
    await rp.shows(7);
    await expect(rp.option("#7 note")).toBeVisible();
    await expect(page.getByRole("tab", { name: "Events (8)" })).toBeVisible();

    // reading back stops following; new events still arrive
    await rp.option("#3 note").click();
    await rp.shows(3);
    await appendEvents(request, base, runId, [
      ev(8, "tool.call", { call: "t1", tool: "deploy", args: {}, effect: "write", idempotencyKey: "k1" }, "s1"),
    ]);
    await expect(page.getByRole("tab", { name: "Events (9)" })).toBeVisible();
    await expect(page.getByTestId("inspector")).toHaveAttribute("data-seq", "3");
    await page.getByRole("checkbox", { name: "follow live tail" }).check();
    await rp.shows(8);

    await appendEvents(request, base, runId, [
      ev(9, "tool.result", { call: "t1", status: "ok", latencyMs: 30 }, "s1"),
      ev(10, "step.end", { status: "ok" }, "s1"),
      ev(11, "run.end", { status: "succeeded" }),
    ]);
    await rp.shows(11);
    await expect(page.locator(".run-header").getByText("succeeded", { exact: true })).toBeVisible();
  });
}

test("hostile payloads render as inert text and the page stays responsive", async ({ page, request, guard, runPage: rp }) => {
  test.setTimeout(120_000);
  const runId = uniqueId("e2e-hostile");
  guard.allowNavigation(BASE);
  // the e2e servers accept lines up to 4 MB (playwright.config.ts): the long string fills one
  await postJournal(request, BASE, hostileJournal(runId, 5 * 1024 * 1024));
  const inert = async () => {
    expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
    expect(await page.locator('main img, main iframe, main script, a[href^="javascript:"]').count()).toBe(0);
    // no bidi control or zero-width character reaches the screen as such: all are shown as ⟨U+…⟩
    expect(await page.evaluate(() => /[\u200B-\u200F\u202A-\u202E\u2066-\u2069]/.test(document.body.innerText))).toBe(false);
  };
  await rp.open(BASE, runId, "?event=0");
  await expect(page.getByRole("heading", { level: 1 })).toContainText(HOSTILE.script);
  await expect(page.getByText("invoice⟨U+202E⟩gpj.exe", { exact: true }).first()).toBeVisible();
  await rp.shows(0);
  await inert();

  // step through every event with the keyboard; each pane must show the payload as text
  for (let seq = 1; seq <= 11; seq++) {
    await page.keyboard.press("j");
    await rp.shows(seq);
    await inert();
  }
  await rp.option("#2 context").click();
  await rp.shows(2);
  await expect(rp.panel()).toContainText(HOSTILE.script);
  await expect(rp.panel()).toContainText("⟨U+202E⟩"); // the right-to-left override is shown, not obeyed
  await expect(rp.panel()).toContainText("⟨U+200B⟩");
  await expect(rp.panel()).toContainText(HOSTILE.js);

  await rp.option("#6 tool.result fetch_url").click();
  await rp.shows(6);
  await expect(rp.panel()).toContainText("{10,000 keys}");
  await rp.panel().getByRole("button", { name: "Expand" }).first().click();
  await expect(rp.panel().getByRole("button", { name: /show 1,000 more of 9,900/ })).toBeVisible();

  await rp.option("#7 note").click();
  await rp.shows(7);
  await expect(rp.panel()).toContainText("more characters");
  // still usable with a 4 MB string on the page: the next key steps on (its frame time is
  // scripts/bench-viewer.ts's figure)
  await page.keyboard.press("j");
  await rp.shows(8);
  await inert();
  await rp.tab("Raw JSON").click();
  await expect(rp.panel()).toContainText(HOSTILE.img);
  await inert();
});
