import "server-only";
/**
 * The origin a page shows in the commands it offers to paste (`curl http://HOST/api/…`).
 * It comes from the request's Host header; X-Forwarded-Host and X-Forwarded-Proto are
 * honoured only with RETRACE_TRUST_PROXY=1 (a reverse proxy in front sets them; without
 * one, any client can). A value that is not a plain host[:port] is never shown: it would
 * be pasted into a shell.
 */

import { trustProxy as trustsProxy } from "./access/client-address";

interface HeaderSource {
  get(name: string): string | null;
}

const HOST =
  /^(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*|\[[0-9A-Fa-f:.]{2,45}\])(?::\d{1,5})?$/;
const FALLBACK = "127.0.0.1:3000";

/** The first value of a header that proxies may have appended to (`a, b`). */
const first = (v: string | null) => (v === null ? null : v.split(",")[0].trim());

/** `http://host:port` as the browser reached this server (see above). */
export function displayOrigin(headers: HeaderSource, env: Record<string, string | undefined> = process.env): string {
  const proxied = trustsProxy(env);
  const forwardedHost = proxied ? first(headers.get("x-forwarded-host")) : null;
  const candidate = forwardedHost || headers.get("host") || FALLBACK;
  const host = HOST.test(candidate) ? candidate : FALLBACK;
  const forwardedProto = proxied ? first(headers.get("x-forwarded-proto"))?.toLowerCase() : null;
  const proto = forwardedProto === "https" || forwardedProto === "http" ? forwardedProto : "http";
  return `${proto}://${host}`;
}
