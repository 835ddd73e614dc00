"use client";
import Link from "next/link";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect, useRef, useState, useTransition } from "react";
import { ConfirmFields, confirmationInput, useConfirmation } from "./confirm-fields";
import { resumePlanOf, resumeRun } from "@/app/actions/live";
import type { ResumeAction, ResumePlan, ResumeRow } from "@/lib/live/resume-plan";
import { NO_RESULT } from "@/lib/semantics";
import type { ExecutorChoice } from "@/lib/live/types";
import { SafeText } from "@/components/ui/safe-text";
import { revealInvisibles } from "@/lib/view/text";
import { useRunStoreApi } from "@/components/run/run-store";
import { useLivePowers } from "./live-context";
import { useResumeView } from "./resume-store";

const RESUMABLE = new Set(["failed", "cancelled"]);
/**
 * A checkpoint id in a select option, which holds plain text only: bidi and zero-width
 * characters shown as their code (as SafeText does), and a long id cut, as options cannot wrap.
 */
const short = (s: string) => {
  const t = revealInvisibles(s)
    .map((g) => (g.kind === "text" ? g.text : `(${g.code})`))
    .join("");
  return t.length > 60 ? `${t.slice(0, 60)}…` : t;
};
export const RESUME_PLAN_KEY = "resume-plan";

const ACTION: Record<ResumeAction, { label: string; tone: string }> = {
  reuse: { label: "reuse", tone: "good" },
  skip: { label: "skip", tone: "good" },
  reconcile: { label: "reconcile first", tone: "bad" },
  redo: { label: "run again", tone: "" },
};

interface ResumeViewAnswer {
  plan: ResumePlan;
  executors: ExecutorChoice[];
  readOnly: string | null;
}
interface ResumeDone {
  branch: string;
  stop: string;
  stopDetail: string;
  modelCalls: number;
  finalText: string | null;
  resumeOf: { run: string; checkpoint: string };
  checkpointSeq: number;
  counts: ResumePlan["counts"];
  findings: number;
  auditSeq: number;
}

/** A link to an event of this run: a real URL (copy, new tab), selected in place on a plain click. */
function SeqLink({ runId, seq }: { runId: string; seq: number }) {
  const api = useRunStoreApi();
  return (
    <a
      href={`/runs/${encodeURIComponent(runId)}?event=${seq}`}
      onClick={(e) => {
        if (e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
        e.preventDefault();
        api.getState().select(seq);
      }}
    >
      #{seq}
    </a>
  );
}

/**
 * Under the run header of a failed or cancelled run: the resume plan from a durable
 * checkpoint (what a resume reuses, skips, must reconcile first, runs again), each row
 * linked to its events, and the resume itself for an operator (a live action: the server
 * decides again, step by step). Other runs get no panel; a checkpoint's inspector says why.
 */
export function ResumePanel({ runId, status }: { runId: string; status: string }) {
  const view = useResumeView();
  const open = view.run === runId && view.open;
  const checkpoint = view.run === runId ? view.checkpoint : null;
  const q = useQuery({
    queryKey: [RESUME_PLAN_KEY, runId, checkpoint],
    queryFn: async (): Promise<ResumeViewAnswer> => {
      const r = await resumePlanOf({ run: runId, ...(checkpoint ? { checkpoint } : {}) });
      if (!r.ok) throw new Error(r.error);
      return r.value;
    },
    enabled: open,
    staleTime: 0,
  });
  if (!RESUMABLE.has(status) && !open) return null;
  return (
    <details
      className="resume-panel"
      data-testid="resume-panel"
      open={open}
      onToggle={(e) => {
        const now = (e.currentTarget as HTMLDetailsElement).open;
        if (now !== open) view.setOpen(runId, now);
      }}
    >
      <summary>Resume plan: what a resume from a durable checkpoint would reuse, skip and reconcile first</summary>
      {!open ? null : q.isError ? (
        <p role="alert" className="admin-error">
          Could not read the resume plan: <SafeText value={q.error.message} className="" />
        </p>
      ) : !q.data ? (
        <p className="muted">Reading the run…</p>
      ) : (
        <PlanBody runId={runId} answer={q.data} />
      )}
    </details>
  );
}

function PlanBody({ runId, answer }: { runId: string; answer: ResumeViewAnswer }) {
  const { plan, executors, readOnly } = answer;
  const choose = useResumeView((s) => s.choose);
  const c = plan.counts;
  return (
    <div className="resume-body">
      {plan.checkpoints.length > 0 ? (
        <div className="live-row">
          <label>
            From checkpoint{" "}
            <select aria-label="Checkpoint" value={plan.checkpoint?.id ?? ""} onChange={(e) => choose(runId, e.target.value || null)}>
              {plan.checkpoint === null ? <option value="">(none)</option> : null}
              {plan.checkpoints.map((cp) => (
                <option key={cp.seq} value={cp.id} disabled={!cp.durable}>
                  {short(cp.id) || "(no id)"} · #{cp.seq}
                  {cp.durable ? " · durable" : " · not durable"}
                </option>
              ))}
            </select>
          </label>
          {plan.checkpoint ? (
            <span>
              at <SeqLink runId={runId} seq={plan.checkpoint.seq} />
            </span>
          ) : null}
        </div>
      ) : null}
      {plan.impossible ? (
        <p data-testid="resume-impossible" className="warnc">
          No resume: <SafeText value={plan.impossible} className="" />
        </p>
      ) : (
        <p data-testid="resume-counts">
          {c.reuse} reused · {c.skip} skipped · <span className={c.reconcile > 0 ? "bad" : ""}>{c.reconcile} to reconcile first</span> ·{" "}
          {c.redo} to run again
          {plan.modelCallsAfter > 0
            ? ` · ${plan.modelCallsAfter} model response${plan.modelCallsAfter === 1 ? "" : "s"} after the checkpoint: the model is asked again`
            : ""}
        </p>
      )}
      {plan.rows.length > 0 ? <PlanTable runId={runId} rows={plan.rows} /> : null}
      {!plan.impossible && plan.rows.length === 0 ? <p className="muted">No tool call after this checkpoint.</p> : null}
      {plan.refusal && !plan.impossible ? (
        <p role="alert" className="admin-error" data-testid="resume-refusal">
          Resume refused: <SafeText value={plan.refusal} className="" />
          {c.reconcile > 0 ? " (open the call and use Reconcile…)" : ""}
        </p>
      ) : null}
      {readOnly ? <p className="muted">This run cannot be acted on: {readOnly}.</p> : null}
      {!plan.impossible && !readOnly && executors.length === 0 ? (
        <p className="muted">Resuming needs the operator role for the environment of a model executor of this project.</p>
      ) : null}
      {!plan.refusal && !readOnly && executors.length > 0 && plan.checkpoint ? (
        <ResumeForm runId={runId} plan={plan} executors={executors} />
      ) : null}
    </div>
  );
}

function PlanTable({ runId, rows }: { runId: string; rows: ResumeRow[] }) {
  return (
    <table className="live-table resume-table" aria-label="Resume plan">
      <thead>
        <tr>
          <th>resume will</th>
          <th>call</th>
          <th>tool</th>
          <th>recorded outcome</th>
          <th>external id</th>
          <th>why</th>
        </tr>
      </thead>
      <tbody>
        {rows.map((r) => (
          <tr key={r.seq} data-action={r.action}>
            <td>
              <span className={`badge ${ACTION[r.action].tone}`}>{ACTION[r.action].label}</span>
            </td>
            <td>
              <SeqLink runId={runId} seq={r.seq} />
            </td>
            <td>
              <SafeText value={r.tool} limit={80} className="" /> <span className="muted">({r.effect || "effect not recorded"})</span>
            </td>
            <td>
              {r.status ?? NO_RESULT}
              {r.resultSeq !== null ? (
                <>
                  {" "}
                  at <SeqLink runId={runId} seq={r.resultSeq} />
                </>
              ) : null}
              {r.reconcileSeq !== null ? (
                <>
                  , reconcile <SeqLink runId={runId} seq={r.reconcileSeq} />
                </>
              ) : r.reconciled ? (
                <>
                  , reconciled on{" "}
                  <Link href={`/runs/${encodeURIComponent(r.reconciled.where)}`} prefetch={false} className="mono">
                    {r.reconciled.where}
                  </Link>
                </>
              ) : null}
            </td>
            <td className="mono">{r.externalId ? <SafeText value={r.externalId} limit={60} className="" /> : "—"}</td>
            <td>
              <SafeText value={r.why} limit={200} className="" />
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function ResumeForm({ runId, plan, executors }: { runId: string; plan: ResumePlan; executors: ExecutorChoice[] }) {
  const { signedIn } = useLivePowers();
  const qc = useQueryClient();
  const [executor, setExecutor] = useState(executors[0]?.id ?? "");
  const confirmation = useConfirmation();
  const [error, setError] = useState<string | null>(null);
  const [done, setDone] = useState<ResumeDone | null>(null);
  const [pending, start] = useTransition();
  const doneRef = useRef<HTMLParagraphElement>(null);
  // the answer is below the form, in a pane that scrolls: bring it into view
  useEffect(() => doneRef.current?.scrollIntoView({ block: "nearest" }), [done]);
  const chosen = executors.find((e) => e.id === executor);
  const needsName = !signedIn || chosen?.environment === "production";
  return (
    <form
      className="live-form resume-form"
      aria-label="Resume"
      data-testid="resume-form"
      onSubmit={(e) => {
        e.preventDefault();
        start(async () => {
          setError(null);
          try {
            const r = await resumeRun({
              run: runId,
              checkpoint: plan.checkpoint!.id,
              executor,
              digest: plan.digest,
              ...confirmationInput(confirmation),
            });
            if (r.ok) {
              setDone(r.value);
              void qc.invalidateQueries({ queryKey: [RESUME_PLAN_KEY, runId] });
            } else setError(r.error);
          } catch {
            setError("the server could not be reached; nothing was resumed");
          }
        });
      }}
    >
      <p className="muted">
        Resuming is a live action on <b>{chosen?.environment ?? "?"}</b>: a new branch run starts from checkpoint{" "}
        <b>
          <SafeText value={plan.checkpoint!.id} limit={80} className="" />
        </b>{" "}
        and the model is asked again; the calls it makes that the table reuses or skips are answered from the recording, any other write
        stops the resume for its own confirmed live action. The original journal is never changed, and the privileged-action log gets an
        entry.
      </p>
      <div className="live-fields">
        <label>
          Model executor
          <select value={executor} onChange={(e) => setExecutor(e.target.value)} aria-label="Model executor">
            {executors.map((e) => (
              <option key={e.id} value={e.id}>
                {e.environment} · {e.name} · {e.url}
              </option>
            ))}
          </select>
        </label>
        <ConfirmFields signedIn={signedIn} needsName={needsName} operation="resume" confirmation={confirmation} />
        <button type="submit" className="primary" disabled={pending}>
          {pending ? "Resuming…" : "Resume live"}
        </button>
      </div>
      {error ? (
        <p role="alert" className="admin-error">
          <SafeText value={error} className="" />
        </p>
      ) : null}
      {done ? (
        <p className="live-done" role="status" data-testid="resume-done" ref={doneRef}>
          Recorded as branch run{" "}
          <Link href={`/runs/${encodeURIComponent(done.branch)}`} prefetch={false}>
            {done.branch}
          </Link>{" "}
          (resume of checkpoint <SafeText value={done.resumeOf.checkpoint} limit={80} className="" /> at #{done.checkpointSeq}):{" "}
          {done.modelCalls} model call{done.modelCalls === 1 ? "" : "s"}, stopped: {done.stop} · log entry {done.auditSeq} ·{" "}
          {done.finalText !== null ? (
            <>
              the agent answered: <SafeText value={done.finalText} limit={300} className="" />
            </>
          ) : (
            <SafeText value={done.stopDetail} limit={300} className="" />
          )}
        </p>
      ) : null}
    </form>
  );
}

/** In a checkpoint's inspector: open the resume plan from here, or why there is none. */
export function ResumeFromCheckpoint({ runId, status, id, durable }: { runId: string; status: string; id: string; durable: boolean }) {
  const choose = useResumeView((s) => s.choose);
  if (!RESUMABLE.has(status))
    return (
      <p className="muted" data-testid="resume-hint">
        No resume from here: the run {status === "running" ? "is still running" : status}; only a failed or cancelled run is resumed.
      </p>
    );
  if (!durable)
    return (
      <p className="muted" data-testid="resume-hint">
        No resume from here: this checkpoint is not durable (the agent did not persist it).
      </p>
    );
  return (
    <p data-testid="resume-hint">
      <button type="button" className="link" onClick={() => choose(runId, id)}>
        Resume plan from this checkpoint
      </button>
    </p>
  );
}
