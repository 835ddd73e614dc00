/**
 * Where a sign-in may send the browser next (`/login?next=…`): the one check the login page
 * and the sign-in action share. `next` comes from a link anyone can craft, so it is read the
 * way the browser will read the redirect: parsed as a URL against this server's origin and
 * kept only when it stays on that origin. Browsers drop tabs and newlines inside a URL and
 * read `\` as `/`, so `/\t/evil.example` and `/\evil.example` both mean `//evil.example`:
 * control characters and backslashes are refused outright, typed or percent-encoded.
 */

/** Any origin serves to resolve a path; the answer never depends on which. */
const BASE = "http://retrace.invalid";

// C0 controls, DEL, C1 controls and the backslash
// eslint-disable-next-line no-control-regex
const REFUSED = /[\u0000-\u001f\u007f-\u009f\\]/;

/**
 * `next` as a path of this server (`/runs/r1?x=1#e3`), or `/` when it is missing, not a
 * path, or could lead anywhere else.
 */
export function safeNext(next: unknown, origin: string = BASE): string {
  if (typeof next !== "string" || next.length === 0 || next.length > 2000) return "/";
  let decoded: string;
  try {
    decoded = decodeURIComponent(next);
  } catch {
    return "/";
  }
  if (REFUSED.test(next) || REFUSED.test(decoded)) return "/";
  // a path of this server, never a scheme (`javascript:`), a host (`//evil`) or a relative path
  if (!next.startsWith("/") || next.startsWith("//") || decoded.startsWith("//")) return "/";
  let url: URL;
  let own: URL;
  try {
    own = new URL(origin);
    url = new URL(next, own);
  } catch {
    return "/";
  }
  if (url.origin !== own.origin) return "/";
  return url.pathname + url.search + url.hash;
}
