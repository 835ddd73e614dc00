"use server";
/** Legal hold on a run: placing or lifting it needs the admin role in the run's project, checked here on the server. */
import { z } from "zod";
import { actorOf } from "@/lib/access/roles";
import { RUN_ID_PATTERN } from "@/lib/journal/schema";
import { action, authorizeRun } from "@/lib/server/edge";
import { setLegalHold as storeLegalHold } from "@/lib/server/retention";

export const setLegalHold = action(
  { need: "signed-in" },
  z.object({
    run: z.string().regex(RUN_ID_PATTERN),
    held: z.boolean(),
    reason: z.string().max(500).optional(),
  }),
  async (ctx, input) => {
    await authorizeRun(ctx, input.run, "project.admin");
    await storeLegalHold(ctx.db, input.run, input.held, actorOf(ctx.principal), input.reason);
    return { run: input.run, held: input.held };
  },
);
