/**
 * Open mode (no accounts, no keys) is the quick start: no web page may write to it, and it
 * answers no foreign Host name (DNS rebinding). A page served from another port posts a
 * journal the ways a cross-site page can without CORS (a no-cors fetch, plain HTML
 * forms), in Chromium; nothing may be stored. Then Host and Origin over plain HTTP, where
 * any header can be set.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import type { APIRequestContext } from "@playwright/test";
import { example, uniqueId } from "./fixtures/journals";
import { expect, postJournal, test } from "./fixtures/viewer";
import { SQLITE_PORT } from "./servers";

const BASE = `http://127.0.0.1:${SQLITE_PORT}`;
const TS = "2026-11-07T11:00:00.000Z";

/** A one-event journal line; `pad` lets a text/plain form's `name=value` encoding stay JSON. */
const line = (run: string, pad = "") => `{"run":"${run}","seq":0,"ts":"${TS}","type":"note","data":{"text":"planted"},"pad":"${pad}`;

/** The body a `text/plain` form with one field named `line(run)` and value `"}` sends. */
const formBody = (run: string) => `${line(run)}="}\r\n`;

const escapeHtml = (s: string) => s.replace(/&/g, "&amp;").replace(/"/g, "&quot;").replace(/</g, "&lt;");

/** The attacker's pages: a no-cors fetch on load (`/`), and a form for each route (`/forms`). */
function attackerPages(runs: { fetchJournals: string; fetchImports: string; formJournals: string; formImports: string }) {
  const form = (id: string, path: string, run: string) =>
    `<form id="${id}" method="post" enctype="text/plain" action="${BASE}${path}"><input type="hidden" name="${escapeHtml(line(run))}" value='"}'><button>${id}</button></form>`;
  return {
    forms: `<!doctype html><html><body>${form("journals", "/api/journals", runs.formJournals)}${form("imports", "/api/imports", runs.formImports)}</body></html>`,
    fetch: `<!doctype html><html><body><script>
  const post = (path, body) => fetch(${JSON.stringify(BASE)} + path, { method: "POST", mode: "no-cors", headers: { "content-type": "text/plain" }, body });
  Promise.allSettled([
    post("/api/journals", ${JSON.stringify(line(runs.fetchJournals) + '"}\n')}),
    post("/api/imports?name=run.jsonl", ${JSON.stringify(line(runs.fetchImports) + '"}\n')}),
  ]).then((r) => { document.title = "sent " + r.map((x) => x.status).join(","); });
</script></body></html>`,
  };
}

async function stored(request: APIRequestContext, run: string): Promise<boolean> {
  const one = await request.get(`${BASE}/api/runs/${run}`);
  const list = await (await request.get(`${BASE}/api/runs?q=${run}`)).text();
  expect([200, 404]).toContain(one.status());
  return one.status() === 200 || list.includes(run);
}

/** A plain HTTP request with any headers (a browser will not let a page set Host). */
function raw(method: string, path: string, headers: Record<string, string>, body?: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: "127.0.0.1", port: SQLITE_PORT, method, path, headers }, (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (c: string) => (text += c));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body: text }));
    });
    req.on("error", reject);
    req.end(body);
  });
}

test.describe("open mode", () => {
  test("a page on another port cannot store a run: no-cors fetch and form posts are refused", async ({ page, request, guard }) => {
    const runs = {
      fetchJournals: uniqueId("e2e-xo-fetch-j"),
      fetchImports: uniqueId("e2e-xo-fetch-i"),
      formJournals: uniqueId("e2e-xo-form-j"),
      formImports: uniqueId("e2e-xo-form-i"),
    };
    const html = attackerPages(runs);
    const server = http.createServer((req, res) => {
      res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
      res.end(req.url === "/forms" ? html.forms : html.fetch);
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const evil = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      guard.allowNavigation(evil);
      guard.allowNavigation(BASE);
      // the browser logs the refused answers itself
      guard.allowConsoleError(/status of 403/);
      // what the browser got back, and the Origin it sent (as sent on the wire: CDP's extra info)
      const answers: Array<{ url: string; status: number }> = [];
      page.on("response", (r) => {
        if (r.url().startsWith(`${BASE}/api/`)) answers.push({ url: r.url(), status: r.status() });
      });
      const cdp = await page.context().newCDPSession(page);
      await cdp.send("Network.enable");
      // (the two events of one request come in either order)
      const urls = new Map<string, string>();
      const sent = new Map<string, string>();
      cdp.on("Network.requestWillBeSent", (e) => urls.set(e.requestId, e.request.url));
      cdp.on("Network.requestWillBeSentExtraInfo", (e) => sent.set(e.requestId, String(e.headers.Origin ?? e.headers.origin)));
      const origins = () => [...urls].filter(([, url]) => url.startsWith(`${BASE}/api/`)).map(([id]) => sent.get(id));

      await page.goto(`${evil}/`);
      await expect(page).toHaveTitle("sent fulfilled,fulfilled");
      // (a body can be read only until the page navigates away)
      await expect.poll(() => answers.length).toBe(2);
      for (const [i, id] of ["journals", "imports"].entries()) {
        await page.goto(`${evil}/forms`);
        const refused = page.waitForResponse((r) => r.url().startsWith(`${BASE}/api/${id}`) && r.request().method() === "POST");
        await page.locator(`#${id} button`).click();
        expect((await refused).status()).toBe(403);
        await expect(page.locator("body")).toContainText("cross-origin request refused");
        await expect.poll(() => answers.length).toBe(3 + i);
      }
      for (const a of answers) expect(a.status, a.url).toBe(403);
      await expect.poll(origins).toEqual([evil, evil, evil, evil]);
      for (const run of Object.values(runs)) expect(await stored(request, run), run).toBe(false);

      // the same bytes from a client that is not a web page are a journal the server stores:
      // what was refused above was refused for where it came from
      const control = uniqueId("e2e-xo-control");
      const ok = await request.post(`${BASE}/api/journals`, {
        data: formBody(control),
        headers: { "content-type": "application/x-ndjson" },
      });
      expect(ok.status(), await ok.text()).toBe(201);
      expect(await stored(request, control)).toBe(true);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  test("a foreign Host gets 421 from routes and the 403 page from pages, with no data", async ({ request }) => {
    const run = uniqueId("e2e-host");
    await postJournal(request, BASE, example("00-refund-clean.jsonl", run));
    const foreign = { host: `evil.example:${SQLITE_PORT}` };
    const loopback = { host: `127.0.0.1:${SQLITE_PORT}` };
    for (const path of [
      "/api/runs",
      `/api/runs/${run}`,
      `/api/runs/${run}/events`,
      `/api/runs/${run}/summary`,
      `/api/runs/${run}/search?q=refund`,
    ]) {
      const ok = await raw("GET", path, loopback);
      expect(ok.status, path).toBe(200);
      expect(ok.body, path).toMatch(/refund|"seqs":\[0,/);
      const r = await raw("GET", path, foreign);
      expect(r.status, path).toBe(421);
      expect(r.body, path).not.toContain(run);
      expect(r.body, path).not.toMatch(/refund|seqs/);
    }
    // pages: the run and replay pages carry the run's header in their HTML when answered
    for (const path of ["/", `/runs/${run}`, `/runs/${run}/replay`, `/compare?a=${run}`]) {
      const ok = await raw("GET", path, loopback);
      expect(ok.status, path).toBe(200);
      if (path.startsWith("/runs/")) expect(ok.body, path).toContain("support-refund");
      const r = await raw("GET", path, foreign);
      expect(r.status, path).toBe(403);
      expect(r.body, path).toContain("answers only on a loopback address");
      expect(r.body, path).not.toContain("support-refund");
    }
    const other = uniqueId("e2e-host-write");
    for (const path of ["/api/journals", "/api/imports", `/api/runs/${other}/events`]) {
      const r = await raw("POST", path, { ...foreign, "content-type": "application/x-ndjson" }, `${line(other)}"}\n`);
      expect(r.status, path).toBe(421);
    }
    expect(await stored(request, other)).toBe(false);
    // other loopback names are this machine: answered
    expect((await raw("GET", `/api/runs/${run}`, { host: `localhost:${SQLITE_PORT}` })).status).toBe(200);
    expect((await raw("GET", `/api/runs/${run}`, { host: `[::1]:${SQLITE_PORT}` })).status).toBe(200);
  });

  test("state changes need this server's own origin: a foreign, null or cross-site one is refused", async ({ request }) => {
    const host = { host: `127.0.0.1:${SQLITE_PORT}`, "content-type": "application/x-ndjson" };
    const cases: Array<[string, Record<string, string>]> = [
      ["foreign Origin", { origin: "http://127.0.0.1:1" }],
      ["Origin of another host on this port", { origin: `http://evil.example:${SQLITE_PORT}` }],
      ["null Origin (sandboxed frame, redirect)", { origin: "null" }],
      ["no Origin, Sec-Fetch-Site cross-site", { "sec-fetch-site": "cross-site" }],
      ["no Origin, Sec-Fetch-Site same-site", { "sec-fetch-site": "same-site" }],
    ];
    for (const [name, headers] of cases) {
      const run = uniqueId("e2e-origin");
      const r = await raw("POST", "/api/journals", { ...host, ...headers }, `${line(run)}"}\n`);
      expect(r.status, name).toBe(403);
      expect(await stored(request, run), name).toBe(false);
    }
    // this server's own pages, and clients that are not browsers, may write
    const allowed: Array<Record<string, string>> = [{ origin: BASE, "sec-fetch-site": "same-origin" }, {}];
    for (const headers of allowed) {
      const run = uniqueId("e2e-origin-ok");
      const r = await raw("POST", "/api/journals", { ...host, ...headers }, `${line(run)}"}\n`);
      expect(r.status, JSON.stringify(headers)).toBe(201);
      expect(await stored(request, run)).toBe(true);
    }
  });
});
