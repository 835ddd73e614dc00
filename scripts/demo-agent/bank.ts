/**
 * A local SQLite "bank" for the demo agent: orders, a knowledge base, transfers, and a
 * payment executor that honours idempotency keys (same key → the first payment is returned,
 * money never moves twice). The gateway can be told to time out once *after* committing,
 * which is the failure that makes agents pay twice.
 */
import Database from "better-sqlite3";
import { mkdirSync, rmSync } from "node:fs";
import { dirname } from "node:path";
import { ToolTimeoutError } from "../../lib/recorder";

export interface Payment {
  id: string;
  orderId: string;
  amountCents: number;
  idempotencyKey: string | null;
  createdAt: string;
}

export interface Order {
  id: string;
  customer: string;
  amountCents: number;
  chargedTimes: number;
  status: string;
}

export interface KbDoc {
  id: string;
  version: string;
  indexedAt: string;
  content: string;
}

export class Bank {
  readonly db: Database.Database;
  private timeoutsAfterCommit = 0;

  constructor(
    readonly path: string,
    private readonly now: () => number,
    /** `open`: an existing bank file as the demo left it (the sandbox executor's); otherwise a fresh one */
    mode: "fresh" | "open" = "fresh",
  ) {
    mkdirSync(dirname(path), { recursive: true });
    if (mode === "fresh") rmSync(path, { force: true });
    this.db = new Database(path);
    this.db.pragma("journal_mode = WAL");
    if (mode === "open") return;
    this.db.exec(`
      CREATE TABLE orders (id TEXT PRIMARY KEY, customer TEXT NOT NULL, amount_cents INTEGER NOT NULL, charged_times INTEGER NOT NULL, status TEXT NOT NULL);
      CREATE TABLE payments (id TEXT PRIMARY KEY, order_id TEXT NOT NULL, amount_cents INTEGER NOT NULL, idempotency_key TEXT UNIQUE, created_at TEXT NOT NULL);
      CREATE TABLE kb (id TEXT PRIMARY KEY, version TEXT NOT NULL, indexed_at TEXT NOT NULL, content TEXT NOT NULL);
      CREATE TABLE transfers (id TEXT PRIMARY KEY, checks INTEGER NOT NULL, settles_after INTEGER NOT NULL);
    `);
  }

  seed(data: { orders?: Order[]; kb?: KbDoc[]; transfers?: Array<{ id: string; settlesAfter: number }> }): void {
    const insOrder = this.db.prepare("INSERT INTO orders VALUES (@id, @customer, @amountCents, @chargedTimes, @status)");
    const insKb = this.db.prepare("INSERT INTO kb VALUES (@id, @version, @indexedAt, @content)");
    const insTransfer = this.db.prepare("INSERT INTO transfers VALUES (?, 0, ?)");
    this.db.transaction(() => {
      for (const o of data.orders ?? []) insOrder.run(o);
      for (const d of data.kb ?? []) insKb.run(d);
      for (const t of data.transfers ?? []) insTransfer.run(t.id, t.settlesAfter);
    })();
  }

  /** The next `n` payments commit and then report a gateway timeout to the caller. */
  failAfterCommit(n: number): void {
    this.timeoutsAfterCommit = n;
  }

  lookupOrder(orderId: string): Order | undefined {
    const row = this.db
      .prepare("SELECT id, customer, amount_cents AS amountCents, charged_times AS chargedTimes, status FROM orders WHERE id = ?")
      .get(orderId) as Order | undefined;
    return row;
  }

  searchKb(query: string): KbDoc[] {
    const words = query
      .toLowerCase()
      .split(/\W+/)
      .filter((w) => w.length > 3);
    const docs = this.db.prepare("SELECT id, version, indexed_at AS indexedAt, content FROM kb ORDER BY id").all() as KbDoc[];
    return docs.filter((d) => words.some((w) => d.content.toLowerCase().includes(w)));
  }

  checkTransfer(id: string): { id: string; status: "pending" | "settled"; checks: number } {
    this.db.prepare("UPDATE transfers SET checks = checks + 1 WHERE id = ?").run(id);
    const t = this.db.prepare("SELECT checks, settles_after AS settlesAfter FROM transfers WHERE id = ?").get(id) as
      { checks: number; settlesAfter: number } | undefined;
    if (!t) throw new Error(`no transfer ${id}`);
    return { id, status: t.checks >= t.settlesAfter ? "settled" : "pending", checks: t.checks };
  }

  /**
   * Pays a refund. With an idempotency key, a second call returns the first payment and
   * moves no money; without one, every call pays.
   */
  pay(req: { orderId: string; amountCents: number; idempotencyKey?: string }): Payment {
    const key = req.idempotencyKey && req.idempotencyKey.length > 0 ? req.idempotencyKey : null;
    if (key) {
      const existing = this.findPaymentByKey(key);
      if (existing) return existing;
    }
    const n = (this.db.prepare("SELECT COUNT(*) AS n FROM payments").get() as { n: number }).n + 1;
    const payment: Payment = {
      id: `rf_${String(n).padStart(4, "0")}`,
      orderId: req.orderId,
      amountCents: req.amountCents,
      idempotencyKey: key,
      createdAt: new Date(this.now()).toISOString(),
    };
    this.db.prepare("INSERT INTO payments VALUES (@id, @orderId, @amountCents, @idempotencyKey, @createdAt)").run(payment);
    if (this.timeoutsAfterCommit > 0) {
      this.timeoutsAfterCommit--;
      throw new ToolTimeoutError("payment gateway timed out (the payment was committed)");
    }
    return payment;
  }

  findPaymentByKey(key: string): Payment | undefined {
    return this.db
      .prepare(
        "SELECT id, order_id AS orderId, amount_cents AS amountCents, idempotency_key AS idempotencyKey, created_at AS createdAt FROM payments WHERE idempotency_key = ?",
      )
      .get(key) as Payment | undefined;
  }

  paymentsFor(orderId: string): Payment[] {
    return this.db
      .prepare(
        "SELECT id, order_id AS orderId, amount_cents AS amountCents, idempotency_key AS idempotencyKey, created_at AS createdAt FROM payments WHERE order_id = ? ORDER BY id",
      )
      .all(orderId) as Payment[];
  }

  close(): void {
    this.db.close();
  }
}
