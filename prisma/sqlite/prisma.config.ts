import path from "node:path";
import { defineConfig } from "prisma/config";
import { sqliteAdapterFactory } from "../adapters";

const here = path.dirname(new URL(import.meta.url).pathname);
const url = process.env.DATABASE_URL?.startsWith("file:") ? process.env.DATABASE_URL : "file:./data/retrace.db";

export default defineConfig({
  experimental: { adapter: true },
  engine: "js",
  schema: here,
  migrations: { path: path.join(here, "migrations") },
  async adapter() {
    return sqliteAdapterFactory(url);
  },
});
