/**
 * A replay of the agent itself (`retrace replay JOURNAL -- CMD`, issue 29): an agent on the
 * official `openai` SDK recorded through the gateway against a scripted upstream, then
 * replayed with a changed system prompt and `--on-divergence live`. Both journals are
 * uploaded; the replay's page opens beside its recording with the first divergence marked
 * and selected. The expected seq comes from the recorded journal (its first `context`
 * event, the one the system prompt is in), not from Retrace's answer.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { Page } from "@playwright/test";
import { startFake } from "../tests/gateway/fakes";
import { readJournal, retrace } from "../tests/gateway/support/cli";
import { uniqueId } from "./fixtures/journals";
import { expect, postJournal, test } from "./fixtures/viewer";
import { SQLITE_PORT } from "./servers";

const BASE = `http://127.0.0.1:${SQLITE_PORT}`;
const AGENT = path.resolve("tests/gateway/agents/openai-agent.mjs");
const SHOTS = process.env.RETRACE_SCREENSHOTS_DIR;

test.describe("a replay of the agent beside its recording", () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "retrace-e2e-agent-"));
  const recorded = uniqueId("e2e-agent-rec");
  let branchRun = "";
  let divergenceSeq = -1;

  test.beforeAll(async ({ request }) => {
    test.setTimeout(120_000);
    const rec = path.join(root, "rec");
    const rep = path.join(root, "rep");
    fs.mkdirSync(rec);
    fs.mkdirSync(rep);
    for (const dir of [rec, rep]) fs.writeFileSync(path.join(dir, "input.txt"), "x\n");
    const script = [{ toolCalls: [{ name: "read_file", arguments: { path: "input.txt" } }] }, { text: "Read it." }];
    const env = { OPENAI_API_KEY: "sk-e2eagent0123456789abcdefghij", AGENT_STREAM: "1" };
    const journal = path.join(root, "run.jsonl");
    const branch = path.join(root, "branch.jsonl");
    let fake = await startFake("openai", script);
    const r1 = await retrace(
      ["record", "--out", journal, "--run", recorded, "--upstream", `openai=${fake.url}`, "--", process.execPath, AGENT],
      { cwd: rec, env },
    );
    await fake.close();
    expect(r1.code, r1.stderr).toBe(0);
    fake = await startFake("openai", script);
    const r2 = await retrace(
      [
        "replay",
        journal,
        "--json",
        "--on-divergence",
        "live",
        "--upstream",
        `openai=${fake.url}`,
        "--out",
        branch,
        "--",
        process.execPath,
        AGENT,
      ],
      { cwd: rep, env: { ...env, AGENT_INSTRUCTIONS: "Answer in French." } },
    );
    await fake.close();
    expect(r2.code, r2.stderr).toBe(1);
    // the changed system prompt is in the recording's first context event
    divergenceSeq = readJournal(journal).find((e) => e.type === "context")!.seq;
    const b = readJournal(branch);
    branchRun = b[0].run;
    await postJournal(request, BASE, fs.readFileSync(journal, "utf8"));
    await postJournal(request, BASE, fs.readFileSync(branch, "utf8"));
  });

  test.afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

  const opens = async (page: Page) => {
    await page.goto(`${BASE}/runs/${encodeURIComponent(branchRun)}/replay`);
    const view = page.getByTestId("replay-view");
    await expect(view).toHaveAttribute("data-ready", "true", { timeout: 30_000 });
    const beside = page.getByTestId("replay-beside");
    await expect(beside).toContainText(recorded);
    await expect(beside.getByTestId("divergence-kind")).toHaveText("system");
    await expect(beside.getByTestId("divergence-values")).toContainText("Answer in French.");
    await expect(beside.getByTestId("first-divergence")).toHaveAttribute("data-seq", String(divergenceSeq));
    // the replay opens with the divergence selected
    await expect(page.getByTestId("frame-panel")).toHaveAttribute("data-seq", String(divergenceSeq));
    return beside;
  };

  for (const size of [
    { width: 1440, height: 900 },
    { width: 1024, height: 768 },
  ]) {
    test(`opens at the first divergence at ${size.width}×${size.height}, and links to the recording there`, async ({ page, guard }) => {
      guard.allowNavigation(`/runs/`);
      await page.setViewportSize(size);
      const beside = await opens(page);
      // nothing scrolls sideways
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(size.width);
      if (SHOTS) await page.screenshot({ path: path.join(SHOTS, `agent-replay-${size.width}.png`) });
      await beside.getByTestId("first-divergence-link").click();
      await expect(page).toHaveURL(new RegExp(`/runs/${recorded}/replay\\?event=${divergenceSeq}$`));
      await expect(page.getByTestId("frame-panel")).toHaveAttribute("data-seq", String(divergenceSeq), { timeout: 30_000 });
    });
  }

  test("the replay's run page links to this view, and says it diverged", async ({ page, guard }) => {
    guard.allowNavigation(`/runs/`);
    await page.goto(`${BASE}/runs/${encodeURIComponent(branchRun)}`);
    await expect(page.getByTestId("replay-of")).toContainText("diverged");
    await page.getByTestId("replay-beside-link").click();
    await opens(page);
  });
});
