/**
 * What proxy.ts (the per-request CSP nonce) costs. In node: the proxy function alone, per
 * call. Over HTTP, when given running servers: ms per page request, sequential, for a light
 * page (/login) and the runs list (/), on a server built with the proxy and, to compare,
 * one built without it (same sources otherwise); /api/health, which the proxy skips on
 * both, shows how alike the two servers are apart from it.
 *
 *   tsx scripts/bench-proxy.ts [--with URL] [--without URL] [--server LABEL=URL …] [--requests N]
 */
import { parseArgs } from "node:util";
import { NextRequest } from "next/server";
import { proxy } from "../proxy";

const { values } = parseArgs({
  options: {
    with: { type: "string" },
    without: { type: "string" },
    server: { type: "string", multiple: true, default: [] },
    requests: { type: "string", default: "400" },
  },
});
const N = Number(values.requests);

function inProcess() {
  const req = new NextRequest("http://127.0.0.1:3000/runs/some-run?event=12", {
    headers: { accept: "text/html", cookie: "retrace-theme=dark", "user-agent": "bench" },
  });
  for (let i = 0; i < 2_000; i++) proxy(req);
  const calls = 20_000;
  const t0 = performance.now();
  for (let i = 0; i < calls; i++) proxy(req);
  const us = ((performance.now() - t0) * 1000) / calls;
  console.log(`proxy() in node: ${us.toFixed(1)} µs/call (${calls} calls)`);
}

/** Alternates the servers request by request, so the machine's load falls on both alike. */
async function overHttp(servers: Array<[string, string]>) {
  for (const path of ["/login", "/", "/api/health"]) {
    const once = async (base: string) => {
      const t = performance.now();
      const res = await fetch(base + path);
      await res.arrayBuffer();
      if (res.status !== 200) throw new Error(`${base}${path}: HTTP ${res.status}`);
      return performance.now() - t;
    };
    for (let i = 0; i < 30; i++) for (const [, base] of servers) await once(base);
    const times = servers.map((): number[] => []);
    for (let i = 0; i < N; i++) for (const [k, [, base]] of servers.entries()) times[k].push(await once(base));
    for (const [k, [label]] of servers.entries()) {
      const t = times[k].sort((a, b) => a - b);
      const mean = t.reduce((a, b) => a + b, 0) / t.length;
      console.log(
        `${label.padEnd(16)} GET ${path.padEnd(7)} mean ${mean.toFixed(2)} ms/request, p50 ${t[Math.floor(t.length / 2)].toFixed(2)} ms (${N} sequential)`,
      );
    }
  }
}

inProcess();
const servers: Array<[string, string]> = [];
if (values.with) servers.push(["with proxy", values.with]);
if (values.without) servers.push(["without proxy", values.without]);
for (const spec of values.server) {
  const i = spec.indexOf("=");
  servers.push([spec.slice(0, i), spec.slice(i + 1)]);
}
if (servers.length > 0) await overHttp(servers);
