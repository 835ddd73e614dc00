import path from "node:path";
import { defineConfig } from "prisma/config";
import { postgresAdapterFactory } from "../adapters";

const here = path.dirname(new URL(import.meta.url).pathname);
const url = process.env.DATABASE_URL?.startsWith("postgres") ? process.env.DATABASE_URL : "postgresql://postgres@127.0.0.1:5432/retrace";

export default defineConfig({
  experimental: { adapter: true },
  engine: "js",
  schema: here,
  migrations: { path: path.join(here, "migrations") },
  async adapter() {
    return postgresAdapterFactory(url);
  },
});
