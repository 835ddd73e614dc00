import { loadConfig } from "../../server/config";
import { migrate } from "../../server/migrate";
import type { CommandArgs } from "../args";

export const summary = "create the database if needed and apply migrations (DATABASE_URL)";
export const usage = `Usage: npm run -s retrace -- migrate

Creates and migrates the database named by DATABASE_URL (default file:./data/retrace.db).`;

export const options = {} as const;

export async function run({ positionals }: CommandArgs<typeof options>): Promise<number> {
  if (positionals.length > 0) {
    console.error(usage);
    return 1;
  }
  const config = loadConfig();
  await migrate(config, { quiet: true });
  console.log(`migrated ${config.dialect} database`);
  return 0;
}
