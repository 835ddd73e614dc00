import "server-only";
/**
 * The one HTTP request a live action sends an executor (docs/live-actions.md, "Executor
 * protocol"): JSON with the idempotency key, a timeout, no redirects, and only the kind of
 * a failure kept (the executor's own words may carry what was sent). Its host is checked
 * again on the address it resolves to now (executor-hosts.ts): a refused one is a refusal
 * before anything is sent or recorded.
 */
import type { JsonObject, JsonValue } from "../../journal/types";
import { ExecutorHostRefused, type ExecutorHosts } from "./executor-hosts";
import { postToExecutor } from "./executor-request";
import { LiveRefusal } from "./refusal";

export const EXECUTOR_TIMEOUT_MS = 15_000;

export async function post(
  allow: ExecutorHosts | undefined,
  url: string,
  credential: string | null,
  key: string,
  body: JsonValue,
): Promise<{ ok: boolean; json: JsonObject | null; error?: string }> {
  try {
    const headers: Record<string, string> = {
      "content-type": "application/json",
      "idempotency-key": key,
      ...(credential ? { authorization: `Bearer ${credential}` } : {}),
    };
    const res = await postToExecutor(url, headers, JSON.stringify(body), { allow, timeoutMs: EXECUTOR_TIMEOUT_MS });
    let json: JsonObject | null = null;
    try {
      const v = JSON.parse(res.text) as unknown;
      if (v && typeof v === "object" && !Array.isArray(v)) json = v as JsonObject;
    } catch {
      json = null;
    }
    const ok = res.status >= 200 && res.status < 300;
    return ok ? { ok: true, json } : { ok: false, json, error: `the executor answered HTTP ${res.status}` };
  } catch (e) {
    if (e instanceof ExecutorHostRefused) throw new LiveRefusal("executor", `${e.message}; nothing was sent`, 403);
    // the executor's own words may carry what was sent: only the kind of failure is kept
    const name = e instanceof Error ? e.name : "error";
    return {
      ok: false,
      json: null,
      error: name === "TimeoutError" ? "the executor did not answer in time" : `the executor could not be reached (${name})`,
    };
  }
}
