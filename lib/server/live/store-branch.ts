import "server-only";
/**
 * A live action's branch journal, stored as any upload is (through ingest: validated,
 * redacted, analysed), in the original's project.
 */
import type { JournalEvent } from "../../journal/types";
import type { Db } from "../db";
import { ingestBytes } from "../service";

export async function storeBranch(db: Db, project: string, events: JournalEvent[]): Promise<{ findings: number }> {
  const text = events.map((e) => JSON.stringify(e)).join("\n") + "\n";
  const bytes = new TextEncoder().encode(text);
  const r = await ingestBytes(
    db,
    (async function* () {
      yield bytes;
    })(),
    {
      mode: "upload",
      project,
      source: "upload",
    },
  );
  const run = r.runs[0];
  if (!run || r.errors.length > 0) throw new Error("the branch run could not be stored");
  return { findings: run.findings };
}
