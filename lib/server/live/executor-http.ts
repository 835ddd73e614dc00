import "server-only";
/**
 * The one HTTP request a live action sends an executor (docs/live-actions.md, "Executor
 * protocol"): JSON with the idempotency key, a timeout, no redirects, and only the kind of
 * a failure kept (the executor's own words may carry what was sent).
 */
import type { JsonObject, JsonValue } from "../../journal/types";

export const EXECUTOR_TIMEOUT_MS = 15_000;

export async function post(
  url: string,
  credential: string | null,
  key: string,
  body: JsonValue,
): Promise<{ ok: boolean; json: JsonObject | null; error?: string }> {
  try {
    const res = await fetch(url, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "idempotency-key": key,
        ...(credential ? { authorization: `Bearer ${credential}` } : {}),
      },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(EXECUTOR_TIMEOUT_MS),
      redirect: "error",
    });
    const text = await res.text();
    let json: JsonObject | null = null;
    try {
      const v = JSON.parse(text) as unknown;
      if (v && typeof v === "object" && !Array.isArray(v)) json = v as JsonObject;
    } catch {
      json = null;
    }
    return res.ok ? { ok: true, json } : { ok: false, json, error: `the executor answered HTTP ${res.status}` };
  } catch (e) {
    // the executor's own words may carry what was sent: only the kind of failure is kept
    const name = e instanceof Error ? e.name : "error";
    return {
      ok: false,
      json: null,
      error: name === "TimeoutError" ? "the executor did not answer in time" : `the executor could not be reached (${name})`,
    };
  }
}
