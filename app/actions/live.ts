"use server";
/**
 * Live actions: the only way Retrace acts on the world (no route handler, CLI verb or query
 * parameter does). The edge's one run check lets the run through (`run:`, runs.read: a run
 * the caller cannot see is 404 like a missing one); then each decides on the server, step by
 * step, inside lib/server/live's one wrapper (audited.ts; reexecute.ts, reconcile.ts,
 * continue.ts, resume.ts): the operator role, a run that can be acted on, the executor the
 * project's, the operator's environment, a reason, a fresh confirmation, the preview
 * unchanged, no unreconciled unknown outcome. A refusal names the step it stopped at, and
 * nothing reaches an executor.
 */
import { z } from "zod";
import { RUN_ID_PATTERN } from "@/lib/journal/schema";
import { action } from "@/lib/server/edge";
import { MAX_PASSWORD_LENGTH } from "@/lib/server/access/password";
import { reconcile, reconcilePreview } from "@/lib/server/live/reconcile";
import { executorsForCall, reexecute, reexecutePreview } from "@/lib/server/live/reexecute";
import { continueExecutors, continueFork, continuePreview } from "@/lib/server/live/continue";
import { resume, resumeView } from "@/lib/server/live/resume";

const target = {
  run: z.string().regex(RUN_ID_PATTERN, "run id must be 1 to 128 characters of A-Z a-z 0-9 . _ : -"),
  seq: z.coerce.number().int().min(0).max(2_147_483_647),
};
const executor = z.string().min(1, "choose an executor").max(64);
const confirmation = {
  reason: z.string().max(500, "a reason has at most 500 characters").default(""),
  password: z.string().max(MAX_PASSWORD_LENGTH).optional(),
  operationName: z.string().max(128).optional(),
};

/** The executors this caller may use for the call at seq (none: the inspector offers nothing). */
const onRun = { need: "runs.read", run: (input: { run: string }) => input.run } as const;

export const liveExecutors = action(onRun, z.object(target), async (ctx, input) =>
  executorsForCall(ctx.db, ctx.principal, ctx.run, input.seq),
);

export const previewReexecute = action(onRun, z.object({ ...target, executor }), async (ctx, input) =>
  reexecutePreview(ctx.db, ctx.principal, ctx.run, input),
);

export const reexecuteCall = action(
  onRun,
  z.object({ ...target, executor, digest: z.string().regex(/^[0-9a-f]{64}$/, "preview the call first"), ...confirmation }),
  async (ctx, input) => reexecute(ctx.db, ctx.principal, ctx.run, input),
);

export const previewReconcile = action(onRun, z.object({ ...target, executor }), async (ctx, input) =>
  reconcilePreview(ctx.db, ctx.principal, ctx.run, input),
);

export const reconcileCall = action(
  onRun,
  z.object({
    ...target,
    executor,
    mode: z.enum(["mark", "ask"]),
    outcome: z.enum(["succeeded", "failed"]).optional(),
    evidence: z.string().max(2000, "evidence has at most 2000 characters").optional(),
    externalId: z.string().max(200).optional(),
    ...confirmation,
  }),
  async (ctx, input) => reconcile(ctx.db, ctx.principal, ctx.run, input),
);

/**
 * Continue a what-if fork live (lib/server/live/continue.ts): the model executor is called
 * from the fork with the edited context; reads come from the recording or the read
 * executor, writes stop the continuation (or are blocked, sandbox-only).
 */
const continuation = {
  ...target,
  // checked by the fork's one schema on the server (lib/replay/fork-override.ts), as the URL and the CLI are
  override: z.unknown().optional(),
  executor,
  maxTurns: z.coerce.number().int().min(1, "at least 1 model turn").max(20, "at most 20 model turns").optional(),
  sandboxOnly: z.boolean().optional(),
};

/** The model executors this caller may continue the run with (none: the fork panel offers nothing). */
export const liveModelExecutors = action(onRun, z.object({ run: target.run }), async (ctx) =>
  continueExecutors(ctx.db, ctx.principal, ctx.run),
);

export const previewContinue = action(onRun, z.object(continuation), async (ctx, input) =>
  continuePreview(ctx.db, ctx.principal, ctx.run, input),
);

export const continueLive = action(
  onRun,
  z.object({ ...continuation, digest: z.string().regex(/^[0-9a-f]{64}$/, "preview the continuation first"), ...confirmation }),
  async (ctx, input) => continueFork(ctx.db, ctx.principal, ctx.run, input),
);

const checkpointId = z.string().min(1, "choose a checkpoint").max(200);

/** The resume plan of a run (anyone who may read it); `checkpoint` omitted: the last durable one. */
export const resumePlanOf = action(onRun, z.object({ run: target.run, checkpoint: checkpointId.optional() }), async (ctx, input) =>
  resumeView(ctx.db, ctx.principal, ctx.run, input),
);

/** Resume a failed or cancelled run from a durable checkpoint as a branch run (resumeOf). */
export const resumeRun = action(
  onRun,
  z.object({
    run: target.run,
    checkpoint: checkpointId,
    executor,
    digest: z.string().regex(/^[0-9a-f]{64}$/, "look at the resume plan first"),
    ...confirmation,
  }),
  async (ctx, input) => resume(ctx.db, ctx.principal, ctx.run, input),
);
