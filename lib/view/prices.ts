/**
 * Model prices a project sets (US dollars per million input and output tokens, per model
 * name) and the cost they give a run's model calls. Journals carry no prices; a call to a
 * model the table does not price has no cost, and the charts say "no price for MODEL"
 * instead of counting it as $0.
 */

interface ModelPrice {
  /** USD per 1,000,000 input tokens */
  input: number;
  /** USD per 1,000,000 output tokens */
  output: number;
}

export type PriceTable = Record<string, ModelPrice>;

/** One model call's usage, from its model.response (model name from its request). */
export interface CallUsage {
  /** seq of the model.response */
  seq: number;
  model: string | null;
  inputTokens: number;
  outputTokens: number;
}

const MAX_PRICED_MODELS = 200;
const MODEL_NAME = /^[^\s#]{1,200}$/;

/**
 * Reads the admin form's text: one model a line, `MODEL INPUT OUTPUT` (USD per million
 * tokens; spaces, tabs or commas between), `#` starts a comment. Errors name the line.
 */
export function parsePriceLines(text: string): { table: PriceTable; errors: string[] } {
  const table: PriceTable = Object.create(null) as PriceTable;
  const errors: string[] = [];
  text.split(/\r?\n/).forEach((raw, i) => {
    const line = raw.replace(/#.*$/, "").trim();
    if (!line) return;
    const parts = line.split(/[\s,]+/);
    const where = `line ${i + 1}`;
    if (parts.length !== 3) {
      errors.push(`${where}: write the model, then its input and output price per million tokens (e.g. "gpt-4o 2.50 10.00")`);
      return;
    }
    const [model, a, b] = parts;
    const input = Number(a);
    const output = Number(b);
    if (!MODEL_NAME.test(model)) errors.push(`${where}: "${model.slice(0, 40)}" is not a model name`);
    else if (![a, b].every((t) => /^\d{1,6}(\.\d{1,6})?$/.test(t)))
      errors.push(`${where}: prices are dollars per million tokens, from 0 to 999,999`);
    else if (Object.hasOwn(table, model)) errors.push(`${where}: "${model}" is priced twice`);
    else table[model] = { input, output };
  });
  if (Object.keys(table).length > MAX_PRICED_MODELS) errors.push(`at most ${MAX_PRICED_MODELS} models`);
  return { table, errors };
}

/** The table as the form shows it, models in name order. */
export function formatPriceLines(table: PriceTable): string {
  return Object.keys(table)
    .sort()
    .map((m) => `${m} ${table[m].input} ${table[m].output}`)
    .join("\n");
}

/** A stored table (JSON) read back; anything malformed is left out rather than trusted. */
export function readPriceTable(json: string | null | undefined): PriceTable {
  const table: PriceTable = Object.create(null) as PriceTable;
  if (!json) return table;
  let v: unknown;
  try {
    v = JSON.parse(json);
  } catch {
    return table;
  }
  if (typeof v !== "object" || v === null || Array.isArray(v)) return table;
  for (const [model, p] of Object.entries(v as Record<string, unknown>)) {
    if (!MODEL_NAME.test(model) || typeof p !== "object" || p === null) continue;
    const { input, output } = p as Record<string, unknown>;
    if (typeof input === "number" && typeof output === "number" && input >= 0 && output >= 0) table[model] = { input, output };
  }
  return table;
}

/** The cost of one call, or the model that has no price (`(unnamed model)` when the journal names none). */
export function callCost(table: PriceTable, u: CallUsage): { usd: number } | { unpriced: string } {
  const p = u.model !== null && Object.hasOwn(table, u.model) ? table[u.model] : undefined;
  if (!p) return { unpriced: u.model ?? "(unnamed model)" };
  return { usd: (u.inputTokens * p.input + u.outputTokens * p.output) / 1_000_000 };
}

/**
 * Model calls' usage from a run's model.request and model.response events, in seq order:
 * the model named by the response, else by the request with the same `call`. A response
 * with no usage counts no tokens (it still needs a price to be costed at all).
 */
export function usageFromEvents(events: ReadonlyArray<{ seq: number; type: string; data: Record<string, unknown> }>): CallUsage[] {
  const modelOfCall = new Map<string, string>();
  const out: CallUsage[] = [];
  const str = (v: unknown) => (typeof v === "string" && v.length > 0 ? v : null);
  const count = (v: unknown) => (typeof v === "number" && Number.isFinite(v) && v > 0 ? v : 0);
  for (const e of events) {
    const call = str(e.data.call);
    if (e.type === "model.request") {
      const m = str(e.data.model);
      if (call !== null && m !== null) modelOfCall.set(call, m);
    } else if (e.type === "model.response") {
      const usage = typeof e.data.usage === "object" && e.data.usage !== null ? (e.data.usage as Record<string, unknown>) : {};
      out.push({
        seq: e.seq,
        model: str(e.data.model) ?? (call !== null ? (modelOfCall.get(call) ?? null) : null),
        inputTokens: count(usage.inputTokens),
        outputTokens: count(usage.outputTokens),
      });
    }
  }
  return out;
}
