/**
 * Runs before every page (not API routes or static files: see `config`): gives the
 * response a Content-Security-Policy with a fresh nonce, which Next reads from the request
 * header and puts on its own scripts, and tells pages their own path (`x-retrace-path`,
 * for the /login?next= redirect in lib/server/edge.ts). No authentication here: that is
 * the edge's. nosniff and Referrer-Policy are static, in next.config.js.
 *
 * A POST to a page is a server action: one from another origin is answered 403 here, with
 * one log line (Next's own check would answer 500 and log four); the edge's actions check
 * the same rule again (lib/access/same-origin.ts).
 */
import { NextResponse, type NextRequest } from "next/server";
import { crossOriginRefusal, forLog } from "./lib/access/same-origin";
import { newNonce, pagePolicy } from "./lib/access/security-headers";

export function proxy(request: NextRequest) {
  if (request.method !== "GET" && request.method !== "HEAD") {
    const refused = crossOriginRefusal(request.headers);
    if (refused) {
      const h = request.headers;
      console.warn(
        `retrace: 403 ${request.method} ${forLog(request.nextUrl.pathname)}: cross-origin (origin ${forLog(h.get("origin"))}, host ${forLog(h.get("host"))}, sec-fetch-site ${forLog(h.get("sec-fetch-site"))})`,
      );
      return new NextResponse(refused + "\n", {
        status: 403,
        headers: {
          "content-type": "text/plain; charset=utf-8",
          // the answer to a refused request runs, frames and sniffs nothing (next.config.js's route policy)
          "content-security-policy": "default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'",
          "x-content-type-options": "nosniff",
        },
      });
    }
  }
  const nonce = newNonce();
  const policy = pagePolicy(nonce, process.env.NODE_ENV === "development");
  const headers = new Headers(request.headers);
  headers.set("x-nonce", nonce);
  headers.set("content-security-policy", policy);
  headers.set("x-retrace-path", request.nextUrl.pathname + request.nextUrl.search);
  const response = NextResponse.next({ request: { headers } });
  response.headers.set("Content-Security-Policy", policy);
  return response;
}

export const config = {
  // Route handlers (/api, /v1) stay out: Next copies a request's body in memory for a
  // proxy that runs on it (and cuts it at 10 MB), and uploads are streamed and large.
  // Their static headers come from next.config.js. Static files need no nonce.
  matcher: ["/((?!api/|v1/|_next/static/|_next/image|schema/|favicon\\.ico).*)"],
};
