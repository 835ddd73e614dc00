/**
 * The live actions as the server actions call them (app/actions/live.ts): the run first
 * through the edge's one run check (`authorizedRun`, runs.read: 404 for a run the caller
 * cannot see, like a missing one), then the action with the run it let through. The tests
 * call these with the input the action receives.
 */
import type { Principal } from "@/lib/access/roles";
import type { Db } from "@/lib/server/db";
import * as continueLive from "@/lib/server/live/continue";
import * as reconcileLive from "@/lib/server/live/reconcile";
import * as reexecuteLive from "@/lib/server/live/reexecute";
import * as resumeLive from "@/lib/server/live/resume";
import { authorizedRun, type AuthorizedRun } from "@/lib/server/run-access";

type OnRun<I, R> = (db: Db, principal: Principal, at: AuthorizedRun, input: I) => Promise<R>;

function throughEdge<I, R>(f: OnRun<I, R>): (db: Db, principal: Principal, input: I & { run: string }) => Promise<R> {
  return async (db, principal, input) => f(db, principal, await authorizedRun(db, principal, input.run, "runs.read"), input);
}

export const reexecute = throughEdge(reexecuteLive.reexecute);
export const reexecutePreview = throughEdge(reexecuteLive.reexecutePreview);
export const reconcile = throughEdge(reconcileLive.reconcile);
export const reconcilePreview = throughEdge(reconcileLive.reconcilePreview);
export const continueFork = throughEdge(continueLive.continueFork);
export const continuePreview = throughEdge(continueLive.continuePreview);
export const resume = throughEdge(resumeLive.resume);
export const resumeView = throughEdge(resumeLive.resumeView);
export const continueExecutors = async (db: Db, principal: Principal, run: string) =>
  continueLive.continueExecutors(db, principal, await authorizedRun(db, principal, run, "runs.read"));
export const executorsForCall = async (db: Db, principal: Principal, run: string, seq: number) =>
  reexecuteLive.executorsForCall(db, principal, await authorizedRun(db, principal, run, "runs.read"), seq);
