"use server";
/** Reviewer notes: adding one needs notes.write (reviewer and up) in the run's project, checked here on the server. */
import { z } from "zod";
import { actorOf } from "@/lib/access/roles";
import { MAX_NOTE_LENGTH, NOTE_LABELS, NOTE_TARGETS } from "@/lib/evidence/notes";
import { RUN_ID_PATTERN } from "@/lib/journal/schema";
import { action, authorizeRun } from "@/lib/server/edge";
import { addNote as storeNote } from "@/lib/server/evidence";

export const addNote = action(
  { need: "signed-in" },
  z.object({
    run: z.string().regex(RUN_ID_PATTERN),
    target: z.enum(NOTE_TARGETS),
    seq: z.coerce.number().int().min(0).max(2_147_483_647).nullable().optional(),
    rule: z.string().max(100).nullable().optional(),
    label: z.enum(NOTE_LABELS, { message: `a label is one of ${NOTE_LABELS.join(", ")}` }),
    text: z.string().max(MAX_NOTE_LENGTH, `a note has at most ${MAX_NOTE_LENGTH} characters`),
  }),
  async (ctx, input) => {
    await authorizeRun(ctx, input.run, "notes.write");
    return storeNote(ctx.db, { ...input, author: actorOf(ctx.principal) });
  },
);
