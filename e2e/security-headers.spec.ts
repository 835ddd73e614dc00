/**
 * Response headers of every page and route on the open-mode SQLite server: a
 * Content-Security-Policy whose scripts need this response's nonce (proxy.ts), nosniff,
 * no framing, a same-origin referrer. Each page is visited in Chromium with a listener for
 * `securitypolicyviolation` and CSP console messages, and used (a client-side click, a
 * server action, a worker), so a policy that blocks the app fails here as surely as one
 * that lets a payload's markup run.
 */
import type { APIResponse, Browser, Page, Response } from "@playwright/test";
import { example, HOSTILE, hostileJournal, uniqueId } from "./fixtures/journals";
import { expect, postJournal, test } from "./fixtures/viewer";
import { SQLITE_PORT } from "./servers";

const BASE = `http://127.0.0.1:${SQLITE_PORT}`;

type Policy = Map<string, string[]>;

function parsePolicy(header: string | undefined): Policy {
  const policy: Policy = new Map();
  for (const part of (header ?? "").split(";")) {
    const [name, ...values] = part.trim().split(/\s+/);
    if (name) policy.set(name.toLowerCase(), values);
  }
  return policy;
}

/** Checks a page's headers; returns its nonce. */
async function pageHeaders(res: Response | APIResponse): Promise<string> {
  const h = res.headers();
  expect(h["x-content-type-options"]).toBe("nosniff");
  expect(h["referrer-policy"]).toBe("same-origin");
  const policy = parsePolicy(h["content-security-policy"]);
  const scripts = policy.get("script-src") ?? [];
  expect(scripts).not.toContain("'unsafe-inline'");
  expect(scripts).not.toContain("'unsafe-eval'");
  expect(policy.get("frame-ancestors")).toEqual(["'none'"]);
  expect(policy.get("object-src")).toEqual(["'none'"]);
  expect(policy.get("base-uri")).toEqual(["'none'"]);
  const nonces = scripts.filter((s) => s.startsWith("'nonce-"));
  expect(nonces).toHaveLength(1);
  const nonce = nonces[0].slice("'nonce-".length, -1);
  expect(nonce.length).toBeGreaterThanOrEqual(16);
  // Next put this response's nonce on its own scripts (the browser hides it from the DOM)
  const html = await res.text();
  expect(html).toContain(`nonce="${nonce}"`);
  expect(html).not.toMatch(/<script(?![^>]*\bnonce=)[^>]*>/);
  return nonce;
}

function apiHeaders(res: APIResponse) {
  const h = res.headers();
  expect(h["x-content-type-options"]).toBe("nosniff");
  expect(h["referrer-policy"]).toBe("same-origin");
  const policy = parsePolicy(h["content-security-policy"]);
  expect(policy.get("default-src")).toEqual(["'none'"]);
  expect(policy.get("frame-ancestors")).toEqual(["'none'"]);
}

/** Collects CSP violations: the DOM event (per document, kept in sessionStorage) and the console's report. */
async function watchCsp(page: Page): Promise<() => Promise<string[]>> {
  await page.addInitScript(() => {
    document.addEventListener("securitypolicyviolation", (e) => {
      const seen = JSON.parse(sessionStorage.getItem("csp-violations") ?? "[]") as string[];
      seen.push(`${e.effectiveDirective} blocked ${e.blockedURI || "inline"} at ${e.sourceFile}:${e.lineNumber}`);
      sessionStorage.setItem("csp-violations", JSON.stringify(seen));
    });
  });
  const logged: string[] = [];
  page.on("console", (m) => {
    if (/content security policy|refused to (execute|load|apply|run|create)/i.test(m.text())) logged.push(m.text());
  });
  page.on("worker", (w) =>
    w.on("console", (m) => {
      if (/content security policy|refused to/i.test(m.text())) logged.push(`worker: ${m.text()}`);
    }),
  );
  return async () => [
    ...logged,
    ...((await page.evaluate(() => JSON.parse(sessionStorage.getItem("csp-violations") ?? "[]"))) as string[]),
  ];
}

/** A client-side click that only a hydrated page answers: the theme toggle (system → light → dark) sets data-theme. */
async function hydrated(page: Page) {
  const html = page.locator("html");
  const before = await html.getAttribute("data-theme");
  await page.getByRole("button", { name: /^Theme: / }).click();
  await expect(html).toHaveAttribute("data-theme", before === "light" ? "dark" : "light");
}

test.describe("security headers", () => {
  test("every page: nonce'd CSP, nosniff, no framing; it works and reports no violation", async ({ page, request, guard, runPage }) => {
    test.setTimeout(120_000);
    const a = uniqueId("e2e-csp-a");
    const b = uniqueId("e2e-csp-b");
    await postJournal(request, BASE, example("00-refund-clean.jsonl", a));
    await postJournal(request, BASE, example("00-refund-clean.jsonl", b));
    guard.allowNavigation(BASE);
    const violations = await watchCsp(page);
    const nonces: string[] = [];
    const visit = async (path: string, status = 200) => {
      const res = await page.goto(`${BASE}${path}`);
      expect(res, path).not.toBeNull();
      expect(res!.status(), path).toBe(status);
      nonces.push(await pageHeaders(res!));
    };

    await visit("/");
    await expect(page.getByRole("table", { name: "Runs", exact: true })).toBeVisible();
    await hydrated(page);

    await visit(`/runs/${a}?event=0`);
    await runPage.ready();
    await runPage.option("#18 tool.call issue_refund").click();
    await runPage.shows(18);
    // the ELK layout runs in a module worker (worker-src, 'strict-dynamic')
    const place = () =>
      runPage.node(/^#18 tool\.call issue_refund/).evaluate((el) => (el.closest(".react-flow__node") as HTMLElement).style.transform);
    const before = await place();
    await page.getByLabel("Layout engine").selectOption("elk");
    await expect.poll(place).not.toBe(before);
    await expect(page.getByText(/layout failed/)).toHaveCount(0);

    await visit(`/runs/${a}/replay`);
    await expect(page.getByTestId("replay-view")).toHaveAttribute("data-ready", "true", { timeout: 30_000 });
    await page.getByRole("listbox", { name: "Frames: recorded run and replay" }).getByRole("option", { name: /^#3 / }).first().click();
    await expect(page.getByTestId("frame-panel")).toHaveAttribute("data-seq", "3");

    // the alignment runs in a module worker too
    await visit(`/compare?a=${a}&b=${b}`);
    await expect(page.getByTestId("compare-view")).toHaveAttribute("data-ready", "true", { timeout: 30_000 });
    await expect(page.getByRole("region", { name: "First divergence" })).toBeVisible();

    // server actions answer (wrong credentials, a bogus setup link: nothing is created)
    guard.allowConsoleError(/status of 4\d\d/);
    await visit("/login");
    await page.getByLabel("Name").fill("nobody");
    await page.getByLabel("Password").fill("not-a-password");
    await page.getByRole("button", { name: "Sign in" }).click();
    await expect(page.locator(".auth-error")).toContainText("name or password");

    await visit("/setup?token=not-a-real-token");
    await page.getByLabel("Name").fill("nobody");
    await page.getByLabel("Password (at least 10 characters)").fill("not-a-password");
    await page.getByLabel("Password again").fill("not-a-password");
    await page.getByRole("button", { name: "Create admin and sign in" }).click();
    await expect(page.locator(".auth-error")).toContainText("no longer valid");

    await visit(`/runs/${uniqueId("no-such-run")}`, 404);
    await hydrated(page);

    expect(await violations()).toEqual([]);
    expect(new Set(nonces).size).toBe(nonces.length);
  });

  test("the nonce is new on every request, also for the same page", async ({ request }) => {
    const seen = new Set<string>();
    for (let i = 0; i < 5; i++) seen.add(await pageHeaders(await request.get(`${BASE}/`)));
    expect(seen.size).toBe(5);
  });

  test("routes and static files: nosniff, a policy that allows nothing, no framing", async ({ request }) => {
    const run = uniqueId("e2e-csp-api");
    apiHeaders(await postJournal(request, BASE, example("00-refund-clean.jsonl", run)));
    for (const path of [
      "/api/health",
      "/api/runs",
      `/api/runs/${run}`,
      `/api/runs/${run}/events`,
      `/api/runs/${run}/summary`,
      "/api/runs/nope",
    ])
      apiHeaders(await request.get(`${BASE}${path}`));
    apiHeaders(await request.post(`${BASE}/api/journals`, { data: "not json\n", headers: { "content-type": "application/x-ndjson" } }));
    apiHeaders(await request.post(`${BASE}/v1/traces`, { data: "{}", headers: { "content-type": "application/json" } }));
    apiHeaders(await request.get(`${BASE}/schema/journal-v1.json`));
    // scripts and stylesheets: nosniff, so a JSON answer can never be loaded as a script
    const html = await (await request.get(`${BASE}/`)).text();
    const chunk = /src="(\/_next\/static\/[^"]+\.js)"/.exec(html);
    expect(chunk).not.toBeNull();
    expect((await request.get(`${BASE}${chunk![1]}`)).headers()["x-content-type-options"]).toBe("nosniff");
  });

  test("markup that reached the HTML unescaped still would not run: the policy blocks it", async ({ page, request }) => {
    const runId = uniqueId("e2e-csp-inject");
    await postJournal(request, BASE, hostileJournal(runId, 1024));
    const violations = await watchCsp(page);
    // stand in for an escaping bug: the run page's real HTML and headers, with the payload's
    // markup spliced in raw
    await page.route(`${BASE}/runs/**`, async (route) => {
      const res = await route.fetch();
      const body = (await res.text()).replace(
        "</body>",
        `${HOSTILE.script}${HOSTILE.img.replace("alert(1)", "window.__pwned = 2")}<script src="data:text/javascript,window.__pwned=3"></script></body>`,
      );
      await route.fulfill({ response: res, body });
    });
    const res = await page.goto(`${BASE}/runs/${runId}?event=0`);
    expect(res!.headers()["content-security-policy"]).toContain("'nonce-");
    await expect(page.getByTestId("run-view")).toHaveAttribute("data-ready", "true", { timeout: 20_000 });
    expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
    const seen = await violations();
    expect(seen.some((v) => v.startsWith("script-src-elem blocked inline"))).toBe(true);
    expect(seen.some((v) => v.startsWith("script-src-attr blocked inline"))).toBe(true);
    expect(seen.some((v) => v.startsWith("script-src-elem blocked data"))).toBe(true);
  });

  test("the 403 page (open mode reached under a foreign name) has the same headers and works", async ({ playwright, request }) => {
    const runId = uniqueId("e2e-csp-403");
    await postJournal(request, BASE, example("00-refund-clean.jsonl", runId));
    // a browser that resolves evil.example to this machine, as DNS rebinding would
    const browser: Browser = await playwright.chromium.launch({
      executablePath: "/usr/bin/chromium",
      args: ["--headless", "--no-sandbox", "--disable-gpu", "--host-resolver-rules=MAP evil.example 127.0.0.1"],
    });
    try {
      const page = await browser.newPage();
      const violations = await watchCsp(page);
      const res = await page.goto(`http://evil.example:${SQLITE_PORT}/runs/${runId}`);
      expect(res!.status()).toBe(403);
      await pageHeaders(res!);
      const html = await res!.text();
      expect(html).not.toContain("support-refund");
      await expect(page.getByRole("heading", { name: "You do not have access to this page" })).toBeVisible();
      await expect(page.getByText("answers only on a loopback address")).toBeVisible();
      await hydrated(page);
      expect(await violations()).toEqual([]);
    } finally {
      await browser.close();
    }
  });
});
