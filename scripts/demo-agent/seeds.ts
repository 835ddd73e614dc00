/**
 * The world each demo scenario runs in: the bank's orders, knowledge base and transfers, and
 * the payment gateway's planted fault (it commits, then times out). Seeded once, when a run
 * is recorded (scenarios.ts); a replay opens the bank as the recording left it.
 */
import type { ScenarioName } from "./agent";
import type { Bank } from "./bank";

const DAY = 86_400_000;

interface SeedCtx {
  bank: Bank;
  now: () => number;
}

const SEEDS: Record<ScenarioName, (c: SeedCtx) => void> = {
  "refund-approval": (c) => {
    c.bank.seed({
      orders: [{ id: "A-1001", customer: "cust-42", amountCents: 4999, chargedTimes: 2, status: "charged-twice" }],
      kb: [
        {
          id: "kb-refunds",
          version: "7",
          indexedAt: new Date(c.now() - 2 * DAY).toISOString(),
          content: "Duplicate charge: refund the duplicate in full. Refunds need supervisor approval.",
        },
        {
          id: "kb-tone",
          version: "3",
          indexedAt: new Date(c.now() - 5 * DAY).toISOString(),
          content: "Be brief and friendly; confirm the refund policy amount.",
        },
      ],
    });
    // The gateway commits the first refund and then times out: the classic "did it pay?".
    c.bank.failAfterCommit(1);
  },
  "transfer-watch": (c) => {
    c.bank.seed({ transfers: [{ id: "TR-7", settlesAfter: 3 }] });
  },
  "refund-retry-no-idempotency": (c) => {
    c.bank.seed({
      orders: [{ id: "A-2002", customer: "cust-77", amountCents: 12900, chargedTimes: 2, status: "charged-twice" }],
      // Indexed more than a year ago: the policy has changed since (retrieval.stale).
      kb: [
        {
          id: "kb-refunds",
          version: "2",
          indexedAt: new Date(c.now() - 400 * DAY).toISOString(),
          content: "Duplicate charge: refund immediately, no approval needed.",
        },
      ],
    });
    c.bank.failAfterCommit(1);
  },
  "refund-gateway-outage": (c) => {
    c.bank.seed({
      orders: [{ id: "A-3003", customer: "cust-88", amountCents: 2500, chargedTimes: 3, status: "charged-three-times" }],
      kb: [
        {
          id: "kb-refunds",
          version: "7",
          indexedAt: new Date(c.now() - 2 * DAY).toISOString(),
          content: "Duplicate charge: refund each duplicate in full, one refund per charge.",
        },
      ],
    });
  },
};

/** Seeds a fresh bank for `name` (reading the clock as the recording does). */
export function seedScenario(name: ScenarioName, bank: Bank, now: () => number): void {
  SEEDS[name]({ bank, now });
}
