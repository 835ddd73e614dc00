/**
 * Where the end-to-end servers listen. E2E_PORT_BASE lets two test runs share a machine
 * (the SQLite server on base+1, the PostgreSQL one on base+2).
 */
const base = Number(process.env.E2E_PORT_BASE ?? 3100);
export const SQLITE_PORT = base + 1;
export const PG_PORT = base + 2;
export const SERVERS = [
  { name: "sqlite", base: `http://127.0.0.1:${SQLITE_PORT}` },
  { name: "postgres", base: `http://127.0.0.1:${PG_PORT}` },
] as const;
