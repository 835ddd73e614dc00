/**
 * Executor hosts (docs/live-actions.md, "Executor hosts"): a project admin types the URL
 * the server then POSTs to, so hosts only the server can reach (loopback, metadata,
 * link-local, private) are refused unless RETRACE_EXECUTOR_HOSTS allows them, when the
 * executor is saved and again, on the address the host resolves to then, at each request.
 */
import http from "node:http";
import os from "node:os";
import path from "node:path";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "@/lib/server/config";
import type { Db } from "@/lib/server/db";
import {
  checkedAddress,
  ExecutorHostRefused,
  executorHostProblem,
  parseExecutorHosts,
  refusedKind,
  type Resolve,
} from "@/lib/server/live/executor-hosts";
import { postToExecutor } from "@/lib/server/live/executor-request";
import { addExecutor, listExecutors } from "@/lib/server/live/executors";
import { DIALECTS, freshDb, type TestDb } from "../helpers/db";

/** A resolver that knows a few names (no network in tests); anything else is not found. */
const names: Record<string, string[]> = {
  "metadata.internal": ["169.254.169.254"],
  "intranet.example": ["10.1.2.3"],
  "split.example": ["93.184.215.14", "192.168.0.7"],
  "v6private.example": ["fd12:3456::1"],
  "public.example": ["93.184.215.14"],
  "executor.test": ["127.0.0.1"],
};
const fakeResolve: Resolve = async (host) => {
  const found = names[host];
  if (!found) throw Object.assign(new Error(`no ${host}`), { code: "ENOTFOUND" });
  return found.map((address) => ({ address, family: address.includes(":") ? 6 : 4 }));
};

const NONE = parseExecutorHosts(undefined);

// [url, what the refusal must say]
const HOSTILE: [string, RegExp][] = [
  ["http://169.254.169.254/latest/meta-data", /169\.254\.169\.254 a cloud metadata address/],
  ["http://[fd00:ec2::254]/", /cloud metadata/],
  ["http://metadata.internal/", /"metadata\.internal" resolves to 169\.254\.169\.254, a cloud metadata address/],
  ["http://127.0.0.1:8080", /127\.0\.0\.1 a loopback address/],
  ["http://127.1.2.3/", /loopback/],
  ["http://[::1]:3000/", /::1 a loopback address/],
  ["http://[::ffff:127.0.0.1]/", /loopback/],
  ["http://[::ffff:169.254.169.254]/", /cloud metadata/],
  ["http://[64:ff9b::a9fe:a9fe]/", /cloud metadata/],
  ["http://169.254.10.10/", /a link-local address/],
  ["http://[fe80::1]/", /a link-local address/],
  ["http://10.0.0.5/", /a private address/],
  ["http://172.16.3.4/", /a private address/],
  ["http://172.31.255.255/", /a private address/],
  ["http://192.168.1.1/", /a private address/],
  ["http://100.64.0.1/", /a private address/],
  ["http://[fc00::1]/", /a private address/],
  ["http://v6private.example/", /resolves to fd12:3456::1, a private address/],
  ["http://intranet.example:8443/", /resolves to 10\.1\.2\.3, a private address/],
  ["http://split.example/", /resolves to 192\.168\.0\.7, a private address/],
  ["http://0.0.0.0:3000/", /an unspecified address/],
  ["http://[::]/", /an unspecified address/],
  ["http://2130706433/", /four decimal numbers: "2130706433" is read as 127\.0\.0\.1/],
  ["http://0x7f000001/", /four decimal numbers: "0x7f000001" is read as 127\.0\.0\.1/],
  ["http://0177.0.0.1/", /four decimal numbers/],
  ["http://0x7f.1/", /four decimal numbers/],
  ["http://0x5db8d70e/", /four decimal numbers: "0x5db8d70e" is read as 93\.184\.215\.14/],
  ["http://nowhere.example/", /"nowhere\.example" could not be resolved \(ENOTFOUND\)/],
];

describe("executor hosts: refused unless the deployment allows them", () => {
  it.each(HOSTILE)("refuses %s", async (url, said) => {
    const problem = await executorHostProblem(url, NONE, fakeResolve);
    expect(problem).toMatch(said);
    if (!/decimal|resolved/.test(said.source)) expect(problem).toMatch(/RETRACE_EXECUTOR_HOSTS/);
  });

  it("refuses localhost by the system resolver", async () => {
    expect(await executorHostProblem("http://localhost:3000/", NONE)).toMatch(/"localhost" resolves to .*a loopback address/);
  });

  it("accepts a public host", async () => {
    expect(await executorHostProblem("https://93.184.215.14/exec", NONE, fakeResolve)).toBeNull();
    expect(await executorHostProblem("https://public.example/exec", NONE, fakeResolve)).toBeNull();
    expect(refusedKind("2606:4700::6810:84e5")).toBeNull();
  });

  it("accepts what RETRACE_EXECUTOR_HOSTS allows, by address, host:port, name and CIDR", async () => {
    const allow = parseExecutorHosts("127.0.0.1, 10.0.0.0/8, intranet.example:8443, [::1]:3000, fd00::/8");
    expect(await executorHostProblem("http://127.0.0.1:9999", allow, fakeResolve)).toBeNull();
    expect(await executorHostProblem("http://10.20.30.40/", allow, fakeResolve)).toBeNull();
    expect(await executorHostProblem("http://intranet.example:8443/", allow, fakeResolve)).toBeNull();
    expect(await executorHostProblem("http://[::1]:3000/", allow, fakeResolve)).toBeNull();
    expect(await executorHostProblem("http://v6private.example/", allow, fakeResolve)).toBeNull();
    // only what is allowed: another port, another range, the metadata address
    expect(await executorHostProblem("http://intranet.example:8444/", parseExecutorHosts("intranet.example:8443"), fakeResolve)).toMatch(
      /private/,
    );
    expect(await executorHostProblem("http://[::1]:3001/", allow, fakeResolve)).toMatch(/loopback/);
    expect(await executorHostProblem("http://192.168.1.1/", allow, fakeResolve)).toMatch(/private/);
    expect(await executorHostProblem("http://169.254.169.254/", allow, fakeResolve)).toMatch(/cloud metadata/);
  });

  it("names a malformed RETRACE_EXECUTOR_HOSTS entry", () => {
    expect(() => parseExecutorHosts("127.0.0.1, 10.0.0.0/33")).toThrow(/"10\.0\.0\.0\/33" is not a host, host:port or CIDR/);
    expect(() => parseExecutorHosts("http://x")).toThrow(/"http:\/\/x"/);
    expect(() => loadConfig({ RETRACE_EXECUTOR_HOSTS: "bank:99999" })).toThrow(/RETRACE_EXECUTOR_HOSTS/);
  });
});

describe("executor hosts at request time", () => {
  let server: http.Server;
  let port: number;
  let received = 0;
  beforeAll(async () => {
    server = http.createServer((req, res) => {
      received++;
      req.resume();
      req.on("end", () => res.end(JSON.stringify({ status: "ok", host: req.headers.host })));
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  const send = (url: string, allow: string, resolve: Resolve = fakeResolve) =>
    postToExecutor(url, { "content-type": "application/json" }, "{}", { allow: parseExecutorHosts(allow), timeoutMs: 5000, resolve });

  it("an allowed executor is reached", async () => {
    const r = await send(`http://127.0.0.1:${port}/call`, "127.0.0.1");
    expect(r.status).toBe(200);
    expect(JSON.parse(r.text)).toMatchObject({ status: "ok" });
  });

  it("connects to the address that was checked, not to a second lookup's", async () => {
    // the system resolver knows no executor.test: reaching the server proves the checked address was used
    const r = await send(`http://executor.test:${port}/call`, "127.0.0.0/8");
    expect(r.status).toBe(200);
    expect(JSON.parse(r.text)).toMatchObject({ host: `executor.test:${port}` });
  });

  it("a name that resolved to a public address when saved and to loopback now is refused, unsent", async () => {
    let answers = 0;
    const rebinding: Resolve = async () => [{ address: answers++ === 0 ? "93.184.215.14" : "127.0.0.1", family: 4 }];
    expect(await executorHostProblem(`http://rebind.example:${port}/`, NONE, rebinding)).toBeNull();
    const before = received;
    await expect(send(`http://rebind.example:${port}/call`, "", rebinding)).rejects.toThrow(
      /"rebind\.example" resolves to 127\.0\.0\.1, a loopback address/,
    );
    await expect(send(`http://rebind.example:${port}/call`, "", rebinding)).rejects.toBeInstanceOf(ExecutorHostRefused);
    expect(received).toBe(before);
  });

  it("a loopback executor without the allowance is refused before connecting", async () => {
    const before = received;
    await expect(send(`http://127.0.0.1:${port}/call`, "")).rejects.toThrow(/loopback/);
    expect(received).toBe(before);
  });

  it("checkedAddress refuses every address of a name when one is private", async () => {
    await expect(checkedAddress(new URL("http://split.example/"), NONE, fakeResolve)).rejects.toThrow(/192\.168\.0\.7/);
  });
});

describe.each(DIALECTS)("saving an executor on %s", (dialect) => {
  let t: TestDb;
  let db: Db;
  let allowed: Db;
  beforeAll(async () => {
    t = await freshDb(dialect);
    const keyFile = path.join(os.tmpdir(), `hosts-${dialect}-${process.pid}.executor-key`);
    db = t.open({ RETRACE_EXECUTOR_KEY_FILE: keyFile });
    allowed = t.open({ RETRACE_EXECUTOR_KEY_FILE: keyFile, RETRACE_EXECUTOR_HOSTS: "127.0.0.1:4010" });
  });
  afterAll(async () => t?.cleanup());

  const add = (on: Db, url: string) =>
    addExecutor(on, { project: "default", kind: "tool", name: "*", environment: "sandbox", url, credential: null, createdBy: "test" });

  it.each([
    "http://169.254.169.254/",
    "http://127.0.0.1:4010",
    "http://[::1]/",
    "http://10.0.0.1/",
    "http://2130706433/",
    "http://localhost:4010/",
  ])("refuses %s with a 400 and stores nothing", async (url) => {
    await expect(add(db, url)).rejects.toMatchObject({ status: 400, message: expect.stringMatching(/address|decimal/) });
    expect(await listExecutors(db, ["default"])).toEqual([]);
  });

  it("stores the one RETRACE_EXECUTOR_HOSTS allows", async () => {
    const made = await add(allowed, "http://127.0.0.1:4010");
    expect(made.url).toBe("http://127.0.0.1:4010");
    await expect(add(allowed, "http://127.0.0.1:4011")).rejects.toThrow(/loopback/);
    expect((await listExecutors(db, ["default"])).map((e) => e.url)).toEqual(["http://127.0.0.1:4010"]);
  });
});
