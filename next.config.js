import { PHASE_DEVELOPMENT_SERVER, PHASE_PRODUCTION_BUILD } from "next/constants.js";
import { buildSqliteWriter } from "./scripts/build-sqlite-writer.mjs";

/** @type {import('next').NextConfig} */
const nextConfig = {
  // Native drivers and Prisma's generated client load at run time on the server.
  serverExternalPackages: [
    "better-sqlite3",
    "pg",
    "pg-copy-streams",
    "@prisma/client",
    "@prisma/adapter-better-sqlite3",
    "@prisma/adapter-pg",
  ],
  poweredByHeader: false,
  // The runs list is the home page; /runs (what a run's own path suggests) goes there.
  async redirects() {
    return [{ source: "/runs", destination: "/", permanent: false }];
  },
  // forbidden() renders app/forbidden.tsx with a 403 (lib/server/edge.ts pages)
  experimental: { authInterrupts: true },
  // `npm test` runs tsc over the whole project first; the build does not check types again.
  typescript: { ignoreBuildErrors: true },
  async headers() {
    // Pages get their Content-Security-Policy, with a per-request nonce, from proxy.ts.
    // Route handlers answer JSON or text that no browser should run, frame or sniff.
    const apiPolicy = "default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";
    const common = [
      { key: "X-Content-Type-Options", value: "nosniff" },
      { key: "Referrer-Policy", value: "same-origin" },
    ];
    const strict = [{ key: "Content-Security-Policy", value: apiPolicy }];
    return [
      { source: "/:path*", headers: common },
      { source: "/api/:path+", headers: strict },
      { source: "/v1/:path+", headers: strict },
      { source: "/schema/:path+", headers: strict },
    ];
  },
};

export default async function config(phase) {
  // The SQLite writer thread's bundle (sql.ts starts it; Next bundles it in turn from there)
  // is made from the sources before Next reads them; `next start` runs what was built.
  if (phase === PHASE_PRODUCTION_BUILD || phase === PHASE_DEVELOPMENT_SERVER) await buildSqliteWriter();
  return nextConfig;
}
