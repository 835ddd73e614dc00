"use client";
import Link from "next/link";
import { useQueryClient } from "@tanstack/react-query";
import { useEffect, useState, useTransition } from "react";
import { liveExecutors, previewReconcile, previewReexecute, reconcileCall, reexecuteCall } from "@/app/actions/live";
import { isOpen, NO_RESULT } from "@/lib/semantics";
import type { ExecutorChoice, ReconcilePreview, RecordedCall, ReexecutePreview } from "@/lib/live/types";
import { JsonTree } from "@/components/ui/json-tree";
import { SafeText } from "@/components/ui/safe-text";
import { Jump } from "@/components/inspector/bits";
import { ConfirmFields, confirmationInput, useConfirmation } from "./confirm-fields";
import { useLivePowers } from "./live-context";
import { RESUME_PLAN_KEY } from "./resume-panel";

type Result<R> = { ok: true; value: R } | { ok: false; status: number; error: string };
interface Outcome {
  branch: string;
  forkOf: { run: string; seq: number };
  status: string;
  externalId: string | null;
  findings: number;
  auditSeq: number;
}

/** Calls a live server action; a refusal's message is shown as the server said it. */
export function useLiveCall() {
  const [pending, start] = useTransition();
  const [error, setError] = useState<string | null>(null);
  const call = <R,>(f: () => Promise<Result<R>>, ok: (v: R) => void) =>
    start(async () => {
      setError(null);
      try {
        const r = await f();
        if (r.ok) ok(r.value);
        else setError(r.error);
      } catch {
        setError("the server could not be reached; nothing was sent");
      }
    });
  return { pending, error, call, setError };
}

/**
 * The inspector's live actions for one tool call: re-execute it (preview first) or
 * reconcile its unknown outcome. Shown only to a viewer the server says may act live.
 */
export function LiveActions({ seq, unknownOutcome }: { seq: number; unknownOutcome: boolean }) {
  const powers = useLivePowers();
  const runId = powers.runId;
  const [executors, setExecutors] = useState<ExecutorChoice[] | null>(null);
  // why no executor carries the call out (lib/live/executor-match.ts), shown instead of the actions
  const [noExecutor, setNoExecutor] = useState<string | null>(null);
  const [executor, setExecutor] = useState("");
  const [mode, setMode] = useState<"none" | "reexecute" | "reconcile">("none");
  const [preview, setPreview] = useState<ReexecutePreview | null>(null);
  const [recPreview, setRecPreview] = useState<ReconcilePreview | null>(null);
  const [done, setDoneState] = useState<Outcome | null>(null);
  const qc = useQueryClient();
  // a reconcile or re-execution changes what a resume of this run would do
  const setDone = (o: Outcome | null) => {
    setDoneState(o);
    if (o) void qc.invalidateQueries({ queryKey: [RESUME_PLAN_KEY, runId] });
  };
  const load = useLiveCall();
  const act = useLiveCall();

  useEffect(() => {
    if (!powers.offer) return;
    let live = true;
    liveExecutors({ run: runId, seq }).then(
      (r) => {
        if (!live || !r.ok) return;
        setExecutors(r.value.executors);
        setExecutor(r.value.executors[0]?.id ?? "");
        setNoExecutor(r.value.reason);
      },
      () => undefined,
    );
    return () => {
      live = false;
    };
  }, [powers.offer, runId, seq]);

  if (!powers.offer || !executors) return null;
  if (executors.length === 0)
    return noExecutor ? (
      <section className="live-actions" aria-label="Live actions" data-testid="live-actions">
        <h3>Live actions</h3>
        <p className="muted" data-testid="no-reexecute">
          <SafeText value={noExecutor} />
        </p>
      </section>
    ) : null;
  const chosen = executors.find((e) => e.id === executor);

  return (
    <section className="live-actions" aria-label="Live actions" data-testid="live-actions">
      <h3>Live actions</h3>
      <p className="muted">
        Acts on <b>{chosen?.environment ?? "?"}</b> through an executor; the result is recorded as a new branch run, the original journal is
        never changed, and the privileged-action log gets an entry.
      </p>
      <div className="live-row">
        <label>
          Executor{" "}
          <select
            value={executor}
            onChange={(e) => {
              setExecutor(e.target.value);
              setPreview(null);
              setRecPreview(null);
            }}
            aria-label="Executor"
          >
            {executors.map((e) => (
              <option key={e.id} value={e.id}>
                {e.environment} · {e.name === "*" ? "every tool" : e.name} · {e.url}
              </option>
            ))}
          </select>
        </label>
        <button
          type="button"
          disabled={load.pending}
          onClick={() => {
            setMode("reexecute");
            setDone(null);
            load.call(() => previewReexecute({ run: runId, seq, executor }), setPreview);
          }}
        >
          Preview re-execute
        </button>
        {unknownOutcome ? (
          <button
            type="button"
            disabled={load.pending}
            onClick={() => {
              setMode("reconcile");
              setDone(null);
              load.call(() => previewReconcile({ run: runId, seq, executor }), setRecPreview);
            }}
          >
            Reconcile…
          </button>
        ) : null}
      </div>
      {load.error ? (
        <p role="alert" className="admin-error">
          {load.error}
        </p>
      ) : null}
      {mode === "reexecute" && preview ? <ReexecuteForm preview={preview} signedIn={powers.signedIn} act={act} onDone={setDone} /> : null}
      {mode === "reconcile" && recPreview ? (
        <ReconcileForm preview={recPreview} signedIn={powers.signedIn} act={act} onDone={setDone} />
      ) : null}
      {done ? (
        <p className="live-done" role="status" data-testid="live-done">
          Recorded as branch run{" "}
          <Link href={`/runs/${encodeURIComponent(done.branch)}`} prefetch={false}>
            {done.branch}
          </Link>{" "}
          (fork of #{done.forkOf.seq}): {done.status}
          {done.externalId ? ` · external id ${done.externalId}` : ""} · log entry {done.auditSeq} · {done.findings} finding
          {done.findings === 1 ? "" : "s"} on the branch
        </p>
      ) : null}
    </section>
  );
}

function CallRows({ calls, self }: { calls: RecordedCall[]; self: number }) {
  return (
    <table className="live-table" aria-label="Recorded calls of this operation">
      <thead>
        <tr>
          <th>call</th>
          <th>outcome</th>
          <th>external id</th>
          <th>reconciled</th>
        </tr>
      </thead>
      <tbody>
        {calls.map((c) => {
          return (
            <tr key={c.seq}>
              <td>
                <Jump seq={c.seq} />
                {c.seq === self ? " (this)" : ""}
              </td>
              <td>
                <span className={`badge ${c.status === "ok" ? "good" : "bad"}`}>{c.status ?? NO_RESULT}</span>
              </td>
              <td className="mono">{c.reconciled?.externalId ?? c.externalId ?? "—"}</td>
              <td>
                {c.reconciled ? (
                  `${c.reconciled.outcome}${c.reconciled.where === "journal" ? " (in the journal)" : ` (branch ${c.reconciled.where})`}`
                ) : isOpen(c) ? (
                  <span className="bad">not reconciled</span>
                ) : (
                  "—"
                )}
              </td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}

interface FormProps<P> {
  preview: P;
  signedIn: boolean;
  act: ReturnType<typeof useLiveCall>;
  onDone: (o: Outcome) => void;
}

function ReexecuteForm({ preview: p, signedIn, act, onDone }: FormProps<ReexecutePreview>) {
  const confirmation = useConfirmation();
  return (
    <form
      className="live-form"
      aria-label="Re-execute preview"
      data-testid="reexecute-preview"
      onSubmit={(e) => {
        e.preventDefault();
        act.call(
          () =>
            reexecuteCall({
              run: p.run,
              seq: p.seq,
              executor: p.executor.id,
              digest: p.digest,
              ...confirmationInput(confirmation),
            }),
          onDone,
        );
      }}
    >
      <h4>Preview: what would be sent</h4>
      <p>
        <b>{p.tool}</b> ({p.effect || "effect not recorded"}) to <span className="mono">{p.request.url}</span> on{" "}
        <b>{p.executor.environment}</b>, idempotency key <span className="mono">{p.idempotencyKey}</span>{" "}
        <span className="badge" data-testid="key-source">
          {p.keySource === "recorded" ? "recorded key: a retry of the same operation" : "new key: the call recorded none"}
        </span>
      </p>
      <JsonTree value={p.request.body as never} label="Request body" />
      <h4>Earlier calls of the same operation</h4>
      <CallRows calls={p.same} self={p.seq} />
      {p.refusal ? (
        <p role="alert" className="admin-error" data-testid="live-refusal">
          {p.refusal}
        </p>
      ) : null}
      {!p.refusal && p.confirmed.length > 0 && p.effect !== "read" ? (
        <p className="warnc" data-testid="live-duplicate">
          This repeats a write already confirmed (
          {p.confirmed.map((c) => `#${c.seq} ${c.reconciled?.externalId ?? c.externalId ?? ""}`.trim()).join(", ")}):
          {p.keySource === "recorded"
            ? " the executor should answer with the first result under the same key."
            : " with a new key it may happen again."}{" "}
          Type the operation&apos;s name to confirm.
        </p>
      ) : null}
      {!p.refusal ? (
        <div className="live-fields">
          <ConfirmFields signedIn={signedIn} needsName={p.needsOperationName} operation={p.tool} confirmation={confirmation} />
          <button type="submit" className="primary" disabled={act.pending}>
            {act.pending ? "Sending…" : "Re-execute live"}
          </button>
        </div>
      ) : null}
      {act.error ? (
        <p role="alert" className="admin-error">
          <SafeText value={act.error} />
        </p>
      ) : null}
    </form>
  );
}

function ReconcileForm({ preview: p, signedIn, act, onDone }: FormProps<ReconcilePreview>) {
  const [how, setHow] = useState<"succeeded" | "failed" | "ask">("succeeded");
  const [evidence, setEvidence] = useState("");
  const [externalId, setExternalId] = useState("");
  const confirmation = useConfirmation();
  return (
    <form
      className="live-form"
      aria-label="Reconcile"
      data-testid="reconcile-form"
      onSubmit={(e) => {
        e.preventDefault();
        act.call(
          () =>
            reconcileCall({
              run: p.run,
              seq: p.resultSeq,
              executor: p.executor.id,
              mode: how === "ask" ? "ask" : "mark",
              outcome: how === "ask" ? undefined : how,
              evidence: evidence || undefined,
              externalId: externalId || undefined,
              ...confirmationInput(confirmation),
            }),
          onDone,
        );
      }}
    >
      <h4>
        Reconcile {p.tool} (call <span className="mono">{p.call}</span>,{" "}
        {p.status === NO_RESULT ? (
          <>
            sent at <Jump seq={p.resultSeq} />, no result recorded
          </>
        ) : (
          <>
            {p.status} at <Jump seq={p.resultSeq} />
          </>
        )}
        )
      </h4>
      {p.refusal ? (
        <p role="alert" className="admin-error">
          {p.refusal}
        </p>
      ) : (
        <div className="live-fields">
          <fieldset>
            <legend>What happened</legend>
            <label>
              <input type="radio" name="how" checked={how === "succeeded"} onChange={() => setHow("succeeded")} /> it succeeded
            </label>
            <label>
              <input type="radio" name="how" checked={how === "failed"} onChange={() => setHow("failed")} /> it failed
            </label>
            <label title={p.key ? "" : "the call was sent without an idempotency key"}>
              <input type="radio" name="how" checked={how === "ask"} disabled={!p.key} onChange={() => setHow("ask")} /> ask the executor by
              idempotency key{p.key ? ` (${p.key})` : " (none recorded)"}
            </label>
          </fieldset>
          {how !== "ask" ? (
            <>
              <label>
                External id (evidence)
                <input value={externalId} onChange={(e) => setExternalId(e.target.value)} maxLength={200} autoComplete="off" />
              </label>
              <label>
                Evidence
                <input value={evidence} onChange={(e) => setEvidence(e.target.value)} maxLength={2000} />
              </label>
            </>
          ) : null}
          <ConfirmFields
            signedIn={signedIn}
            needsName={p.executor.environment === "production"}
            operation={p.tool}
            confirmation={confirmation}
          />
          <button type="submit" className="primary" disabled={act.pending}>
            {act.pending ? "Recording…" : "Record reconcile"}
          </button>
        </div>
      )}
      {act.error ? (
        <p role="alert" className="admin-error">
          <SafeText value={act.error} />
        </p>
      ) : null}
    </form>
  );
}
