import "server-only";
/**
 * The address a request came from, for login rate limiting. Next gives route handlers and
 * actions no socket, only headers, and `next start` sets X-Forwarded-For to the socket's
 * peer only when the request has none (`??=`): a client that sends its own header would
 * choose its address and dodge the per-address limit. So, unless a trusted proxy sets the
 * header (RETRACE_TRUST_PROXY=1), the server overwrites it with the peer before Next reads it.
 */
import http from "node:http";

/** Whether X-Forwarded-* may be believed (RETRACE_TRUST_PROXY=1: Retrace runs behind a proxy that sets them). */
export const trustProxy = (env: Record<string, string | undefined> = process.env) => env.RETRACE_TRUST_PROXY === "1";

const GUARDED = Symbol.for("retrace.forwarded-for-guard");

/** Installs the overwrite on every HTTP server of this process (once; the server's start calls it). */
export function guardForwardedFor(): void {
  const proto = http.Server.prototype as http.Server & { [GUARDED]?: true };
  if (proto[GUARDED]) return;
  proto[GUARDED] = true;
  const emit = proto.emit as (this: http.Server, event: string | symbol, ...args: unknown[]) => boolean;
  proto.emit = function (this: http.Server, event: string | symbol, ...args: unknown[]): boolean {
    if (event === "request" && !trustProxy()) {
      const req = args[0] as http.IncomingMessage;
      req.headers["x-forwarded-for"] = req.socket.remoteAddress ?? "unknown";
    }
    return emit.call(this, event, ...args);
  } as typeof proto.emit;
}

/**
 * The client's address: the last X-Forwarded-For entry, which is the socket's peer (set by
 * the guard) or, behind a trusted proxy, the client as that proxy saw it (entries before it
 * are whatever the client claimed).
 */
export function clientAddress(h: Headers): string {
  const chain = (h.get("x-forwarded-for") ?? "")
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
  return (chain[chain.length - 1] ?? "unknown").slice(0, 64);
}
