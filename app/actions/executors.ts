"use server";
/**
 * A project's executors (docs/live-actions.md): added and removed by its admin, each
 * change in the privileged-action log. The credential goes in once, is stored encrypted
 * and is never returned, logged or shown again.
 */
import { z } from "zod";
import { actorOf, PROJECT_ID } from "@/lib/access/roles";
import { EXECUTOR_KINDS } from "@/lib/live/types";
import { AccessError } from "@/lib/server/access/accounts";
import { appendAudit } from "@/lib/server/access/audit-log";
import { action } from "@/lib/server/edge";
import { addExecutor as storeExecutor, MAX_CREDENTIAL, removeExecutor as dropExecutor } from "@/lib/server/live/executors";

const project = z.string().regex(PROJECT_ID, "a project id is lower-case letters, digits and dashes");

export const addExecutor = action(
  { need: "project.admin", projectOf: (i) => i.project },
  z.object({
    project,
    kind: z.enum(EXECUTOR_KINDS, { message: "an executor is a tool or a model executor" }),
    name: z.string().trim().min(1, "name the tool (or * for every tool) or the model").max(128),
    environment: z.string().trim().min(1, "name the environment it acts on").max(32),
    url: z.string().trim().min(1, "give the endpoint's URL").max(2000),
    credential: z.string().max(MAX_CREDENTIAL).default(""),
  }),
  async (ctx, input) => {
    const actor = actorOf(ctx.principal);
    const detail = { kind: input.kind, name: input.name, environment: input.environment, credential: input.credential !== "" };
    try {
      const made = await storeExecutor(ctx.db, { ...input, credential: input.credential || null, createdBy: actor });
      await appendAudit(ctx.db, {
        actor,
        action: "executor.add",
        project: input.project,
        target: made.id,
        result: "ok",
        detail: { ...detail, id: made.id, url: made.url },
      });
      return { id: made.id };
    } catch (e) {
      if (e instanceof AccessError)
        await appendAudit(ctx.db, {
          actor,
          action: "executor.add",
          project: input.project,
          target: input.name,
          result: "refused",
          detail: { ...detail, error: e.message },
        });
      throw e;
    }
  },
);

export const removeExecutor = action(
  { need: "project.admin", projectOf: (i) => i.project },
  z.object({ project, executorId: z.string().min(1).max(64) }),
  async (ctx, input) => {
    const actor = actorOf(ctx.principal);
    try {
      const gone = await dropExecutor(ctx.db, input.project, input.executorId);
      await appendAudit(ctx.db, {
        actor,
        action: "executor.remove",
        project: input.project,
        target: gone.id,
        result: "ok",
        detail: { id: gone.id, name: gone.name, environment: gone.environment },
      });
      return { id: gone.id };
    } catch (e) {
      if (e instanceof AccessError)
        await appendAudit(ctx.db, {
          actor,
          action: "executor.remove",
          project: input.project,
          target: input.executorId,
          result: "refused",
          detail: { error: e.message },
        });
      throw e;
    }
  },
);
