/**
 * The demo's sandbox executors over HTTP (docs/live-actions.md, "Executor protocol"): the
 * banks the demo agent left in --db DIR (one SQLite file per scenario) as a tool executor,
 * and the scripted model as an OpenAI-compatible chat-completions endpoint. Every request
 * needs `Authorization: Bearer <DEMO_BANK_TOKEN>` (the credential Retrace keeps encrypted),
 * and every one that reaches a tool or the model is written to the request log.
 *
 *   DEMO_BANK_TOKEN=… npx tsx scripts/demo-agent/bank-server.ts --db DIR --port 3001
 *
 *   POST /call                  {tool, args, idempotencyKey} → {status, result?, externalId?, error?}
 *   POST /lookup                {tool, idempotencyKey} → {found, status?, externalId?, result?}
 *   POST /v1/chat/completions   OpenAI chat completions (the scripted model)
 *   GET  /ledger?order=ID       the payments of an order (every bank file)
 *   GET  /requests              the request log (no credential in it)
 *   GET  /health                no credential needed
 */
import { readdirSync } from "node:fs";
import http from "node:http";
import { join } from "node:path";
import { timingSafeEqual } from "node:crypto";
import { Bank, type Payment } from "./bank";
import { ScriptedModel, type ChatMessage } from "./model";

export interface LoggedRequest {
  at: string;
  path: string;
  tool?: string;
  idempotencyKey?: string;
}

export interface BankServer {
  url: string;
  requests: LoggedRequest[];
  close(): Promise<void>;
}

function banksIn(dir: string): Bank[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith(".sqlite"))
    .sort()
    .map((f) => new Bank(join(dir, f), Date.now, "open"));
}

const orderOf = (args: Record<string, unknown>) => String(args.orderId ?? "");

function callTool(banks: Bank[], tool: string, args: Record<string, unknown>, key: string): Record<string, unknown> {
  const withOrder = banks.find((b) => b.lookupOrder(orderOf(args)) !== undefined);
  switch (tool) {
    case "lookup_order": {
      const o = withOrder?.lookupOrder(orderOf(args));
      return { status: "ok", result: o ?? null };
    }
    case "issue_refund": {
      if (!withOrder) return { status: "error", error: { message: `no order ${orderOf(args)}` } };
      if (!key) return { status: "error", error: { message: "issue_refund needs an idempotency key" } };
      const p: Payment = withOrder.pay({ orderId: orderOf(args), amountCents: Number(args.amountCents), idempotencyKey: key });
      return { status: "ok", result: p, externalId: p.id };
    }
    case "find_payment": {
      const p = banks.map((b) => b.findPaymentByKey(String(args.idempotencyKey ?? ""))).find(Boolean);
      return { status: "ok", result: p ?? null };
    }
    case "kb_search": {
      const docs = banks.flatMap((b) => b.searchKb(String(args.query ?? "")));
      return { status: "ok", result: docs.map((d) => d.content) };
    }
    default:
      return { status: "error", error: { message: `the demo bank has no tool ${tool}` } };
  }
}

async function body(req: http.IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  let n = 0;
  for await (const c of req) {
    n += (c as Buffer).length;
    if (n > 1_000_000) throw new Error("body too large");
    chunks.push(c as Buffer);
  }
  const v: unknown = JSON.parse(Buffer.concat(chunks).toString("utf8") || "{}");
  if (typeof v !== "object" || v === null || Array.isArray(v)) throw new Error("body must be a JSON object");
  return v as Record<string, unknown>;
}

export function startBankServer(opts: { dir: string; port: number; token: string; host?: string }): Promise<BankServer> {
  const banks = banksIn(opts.dir);
  const model = new ScriptedModel();
  const requests: LoggedRequest[] = [];
  const expected = Buffer.from(`Bearer ${opts.token}`);
  const authorized = (h: string | undefined) => {
    const got = Buffer.from(h ?? "");
    return got.length === expected.length && timingSafeEqual(got, expected);
  };
  const server = http.createServer((req, res) => {
    const send = (status: number, v: unknown) => {
      res.writeHead(status, { "content-type": "application/json" });
      res.end(JSON.stringify(v));
    };
    const url = new URL(req.url ?? "/", "http://bank.local");
    (async () => {
      if (url.pathname === "/health") return send(200, { ok: true });
      if (!authorized(req.headers.authorization)) return send(401, { error: "the demo bank needs its bearer token" });
      if (req.method === "GET" && url.pathname === "/requests") return send(200, { requests });
      if (req.method === "GET" && url.pathname === "/ledger") {
        const order = url.searchParams.get("order") ?? "";
        return send(200, { payments: banks.flatMap((b) => b.paymentsFor(order)) });
      }
      if (req.method !== "POST") return send(404, { error: "not found" });
      const b = await body(req);
      if (url.pathname === "/call") {
        const tool = String(b.tool ?? "");
        const key = String(b.idempotencyKey ?? req.headers["idempotency-key"] ?? "");
        requests.push({ at: new Date().toISOString(), path: "/call", tool, idempotencyKey: key });
        const args = typeof b.args === "object" && b.args !== null ? (b.args as Record<string, unknown>) : {};
        return send(200, callTool(banks, tool, args, key));
      }
      if (url.pathname === "/lookup") {
        const key = String(b.idempotencyKey ?? "");
        requests.push({ at: new Date().toISOString(), path: "/lookup", tool: String(b.tool ?? ""), idempotencyKey: key });
        const p = banks.map((x) => x.findPaymentByKey(key)).find(Boolean);
        return send(200, p ? { found: true, status: "succeeded", externalId: p.id, result: p } : { found: false });
      }
      if (url.pathname === "/v1/chat/completions") {
        requests.push({ at: new Date().toISOString(), path: "/v1/chat/completions" });
        const messages = Array.isArray(b.messages) ? (b.messages as ChatMessage[]) : [];
        return send(200, model.complete(messages));
      }
      return send(404, { error: "not found" });
    })().catch((e: unknown) => send(400, { error: e instanceof Error ? e.message : String(e) }));
  });
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(opts.port, opts.host ?? "127.0.0.1", () => {
      const addr = server.address();
      const port = typeof addr === "object" && addr ? addr.port : opts.port;
      resolve({
        url: `http://${opts.host ?? "127.0.0.1"}:${port}`,
        requests,
        close: () =>
          new Promise<void>((r) => {
            server.close(() => r());
            server.closeAllConnections();
            for (const b of banks) b.close();
          }),
      });
    });
  });
}

if (process.argv[1] && /bank-server\.ts$/.test(process.argv[1])) {
  const arg = (name: string, fallback?: string) => {
    const i = process.argv.indexOf(name);
    return i > 0 && process.argv[i + 1] ? process.argv[i + 1] : fallback;
  };
  const token = process.env.DEMO_BANK_TOKEN ?? "";
  if (token.length < 16) {
    console.error("bank-server: set DEMO_BANK_TOKEN (at least 16 characters)");
    process.exit(1);
  }
  startBankServer({ dir: arg("--db", "data/demo/bank")!, port: Number(arg("--port", "3001")), token }).then(
    (s) => console.log(`demo bank (sandbox executors) on ${s.url}`),
    (e: unknown) => {
      console.error(`bank-server: ${e instanceof Error ? e.message : String(e)}`);
      process.exit(1);
    },
  );
}
