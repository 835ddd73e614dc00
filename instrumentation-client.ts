/**
 * Runs in the browser before the app hydrates. zod probes once per page whether it may
 * compile parsers with `Function("")`; the pages' Content-Security-Policy forbids eval
 * (proxy.ts), so the probe would be reported as a violation. jitless is what zod falls
 * back to anyway; the server keeps its compiled parsers (this file never runs there).
 */
import { config } from "zod/v4/core";

config({ jitless: true });
