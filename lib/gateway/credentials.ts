/**
 * Provider credentials: forwarded upstream, never recorded. The recorded request keeps only
 * the headers on an allow-list (none of them a credential) and its path without the `key`
 * query parameter Gemini takes.
 */

/** Request headers a recording keeps (what an API reads besides the body). */
export const RECORDED_HEADERS: readonly string[] = ["content-type", "anthropic-version", "anthropic-beta", "openai-beta"];

/** Query parameters that carry a credential. */
const KEY_PARAMS = new Set(["key", "api_key", "api-key", "access_token"]);

/** `path?query` with every credential parameter removed. */
export function pathWithoutCredentials(pathAndQuery: string): string {
  const q = pathAndQuery.indexOf("?");
  if (q < 0) return pathAndQuery;
  const params = new URLSearchParams(pathAndQuery.slice(q + 1));
  for (const name of [...params.keys()]) if (KEY_PARAMS.has(name.toLowerCase())) params.delete(name);
  const rest = params.toString();
  return rest === "" ? pathAndQuery.slice(0, q) : `${pathAndQuery.slice(0, q)}?${rest}`;
}

/** The headers of `headers` a recording keeps. */
export function recordedHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of RECORDED_HEADERS) {
    const v = headers[name];
    if (typeof v === "string") out[name] = v;
  }
  return out;
}
