import os from "node:os";
import { openDb } from "../../server/db";
import type { CommandArgs } from "../args";

export const summary = "put a run under legal hold (purge never removes it) or lift it";
export const usage = `Usage: npm run -s retrace -- hold RUN [--release] [--reason TEXT]

A run under legal hold is kept by every purge, whatever its project's retention, until the
hold is lifted (--release). Both are written to the privileged-action log.`;

export const options = {
  release: { type: "boolean" },
  reason: { type: "string" },
} as const;

export async function run({ values, positionals }: CommandArgs<typeof options>): Promise<number> {
  if (positionals.length !== 1) {
    console.error(usage);
    return 2;
  }
  const db = openDb();
  try {
    const { setLegalHold } = await import("../../server/retention");
    const held = values.release !== true;
    await setLegalHold(db, positionals[0], held, `cli:${os.userInfo().username}`, values.reason);
    console.log(held ? `run ${positionals[0]} is under legal hold` : `legal hold on run ${positionals[0]} lifted`);
    return 0;
  } catch (e) {
    console.error(`retrace hold: ${(e as Error).message}`);
    return 1;
  } finally {
    await db.close();
  }
}
