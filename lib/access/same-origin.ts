/**
 * Does a state change come from a page of this server? One rule for the edge's routes and
 * actions (lib/server/edge.ts) and for proxy.ts, which answers a cross-origin POST to a page
 * (a server action) with 403 before Next's own check turns it into a 500.
 */

interface HeaderSource {
  get(name: string): string | null;
}

/**
 * A state change carried by ambient authority (a session cookie, or open mode's network
 * position) must come from a page of this server: a cross-site form or no-cors fetch
 * carries an Origin (or at least Sec-Fetch-Site) that says otherwise. The reason, or null.
 */
export function crossOriginRefusal(h: HeaderSource): string | null {
  const origin = h.get("origin");
  const host = h.get("host");
  if (origin !== null) {
    let originHost: string;
    try {
      originHost = origin === "null" ? "" : new URL(origin).host;
    } catch {
      originHost = "";
    }
    if (!host || originHost.toLowerCase() !== host.toLowerCase())
      return "cross-origin request refused: this changes data and must come from Retrace's own pages";
    return null;
  }
  const site = h.get("sec-fetch-site");
  if (site !== null && site !== "same-origin" && site !== "none")
    return "cross-site request refused: this changes data and must come from Retrace's own pages";
  return null;
}

/** A header value fit for one log line: printable ASCII, at most 80 characters. */
export const forLog = (v: string | null): string => (v === null ? "-" : v.replace(/[^\x20-\x7e]/g, "?").slice(0, 80));
