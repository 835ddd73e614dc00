/**
 * Which API an HTTP request is for, by its path (the gateway forwards path and query
 * unchanged to that API's origin), and whether it is a model call the journal records as
 * one or a side request (model lists, token counts, a `HEAD /` probe) it only passes on.
 */
import { anthropicMessages } from "./apis/anthropic";
import type { WireCodec } from "./apis/codec";
import { gemini } from "./apis/gemini";
import { openaiChat } from "./apis/openai-chat";
import { openaiResponses } from "./apis/openai-responses";
import type { UpstreamApi, WireFormat } from "./types";

export interface Route {
  api: UpstreamApi;
  /** Set for a model call; absent for a side request. */
  codec?: WireCodec;
}

export const CODECS: Record<WireFormat, WireCodec> = {
  "anthropic-messages": anthropicMessages,
  "openai-chat": openaiChat,
  "openai-responses": openaiResponses,
  gemini,
};

/** The providers' own origins, used unless `--upstream API=ORIGIN` says otherwise. */
export const DEFAULT_ORIGINS: Record<UpstreamApi, string> = {
  anthropic: "https://api.anthropic.com",
  openai: "https://api.openai.com",
  gemini: "https://generativelanguage.googleapis.com",
};

/**
 * The route of `method path?query`. `headers` (lower-case names) tell the APIs apart where
 * the path does not (`GET /v1/models` is both Anthropic's and OpenAI's).
 */
export function routeOf(method: string, pathAndQuery: string, headers: Record<string, string | string[] | undefined> = {}): Route {
  const path = pathAndQuery.split("?")[0].replace(/\/+$/, "");
  const post = method.toUpperCase() === "POST";
  if (post && path === "/v1/messages") return { api: "anthropic", codec: anthropicMessages };
  if (post && path === "/v1/chat/completions") return { api: "openai", codec: openaiChat };
  if (post && path === "/v1/responses") return { api: "openai", codec: openaiResponses };
  if (/^\/v1(beta|alpha)?\/models\/[^/]+:(generateContent|streamGenerateContent)$/.test(path))
    return post ? { api: "gemini", codec: gemini } : { api: "gemini" };
  if (path.startsWith("/v1beta/") || path.startsWith("/v1alpha/") || headers["x-goog-api-key"] !== undefined) return { api: "gemini" };
  if (path.startsWith("/v1/messages") || headers["anthropic-version"] !== undefined || headers["x-api-key"] !== undefined)
    return { api: "anthropic" };
  return { api: "openai" };
}

/** `--upstream API=ORIGIN` values: the origins by API, or the reason one is wrong. */
export function parseUpstreams(values: readonly string[]): Record<UpstreamApi, string> | string {
  const out = { ...DEFAULT_ORIGINS };
  for (const v of values) {
    const eq = v.indexOf("=");
    const api = v.slice(0, Math.max(eq, 0));
    if (eq < 0 || !(api in out)) return `--upstream needs API=ORIGIN with API one of anthropic, openai, gemini (got "${v}")`;
    let origin: URL;
    try {
      origin = new URL(v.slice(eq + 1));
    } catch {
      return `--upstream ${api}: "${v.slice(eq + 1)}" is not a URL`;
    }
    if (origin.protocol !== "http:" && origin.protocol !== "https:") return `--upstream ${api}: only http and https origins`;
    out[api as UpstreamApi] = origin.origin;
  }
  return out;
}
