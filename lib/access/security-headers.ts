/**
 * The Content-Security-Policy of Retrace's pages (proxy.ts sets it per request) and of its
 * API answers (next.config.js, static). Payloads are attacker-controlled text shown on
 * these pages: no inline or foreign script may run, so scripts need this request's nonce.
 */

let pool = new Uint8Array(0);
let used = 0;

/**
 * A fresh nonce: 128 random bits, base64 (what a CSP nonce-source accepts). The bits come
 * from a pool filled 4 KiB at a time (one getRandomValues call costs about as much for
 * 4 KiB as for 16 bytes); each slice is used once.
 */
export function newNonce(): string {
  if (used + 16 > pool.length) {
    pool = crypto.getRandomValues(new Uint8Array(4096));
    used = 0;
  }
  let s = "";
  for (let i = used; i < used + 16; i++) s += String.fromCharCode(pool[i]);
  used += 16;
  return btoa(s);
}

/**
 * The page policy for one response.
 * - script-src: only scripts carrying the nonce (Next puts it on its own), and what they
 *   load ('strict-dynamic': the chunk loader and the workers' bootstrap); 'self' is the
 *   fallback for browsers without CSP level 3 and is ignored by those with it.
 * - style-src: stylesheets of this origin and nonce'd `<style>` elements; style
 *   *attributes* need 'unsafe-inline' (style-src-attr) because React renders `style={…}`
 *   props into the HTML and xyflow positions its nodes that way. An attribute cannot run
 *   script, and payload text never becomes markup (React escapes it), so this allows
 *   nothing an attacker's payload could use.
 * - worker-src blob:: the bundler starts module workers (graph layout, compare alignment)
 *   from a blob: bootstrap.
 * - dev: React's dev build needs eval for its error overlays (`next dev` only).
 */
export function pagePolicy(nonce: string, dev = false): string {
  return [
    "default-src 'self'",
    `script-src 'self' 'nonce-${nonce}' 'strict-dynamic'${dev ? " 'unsafe-eval'" : ""}`,
    `style-src 'self' 'nonce-${nonce}'`,
    "style-src-attr 'unsafe-inline'",
    "img-src 'self' data:",
    "font-src 'self'",
    "connect-src 'self'",
    "worker-src 'self' blob:",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join("; ");
}
