"use client";
import { useRouter } from "next/navigation";
import { useEffect, useId, useState } from "react";
import { continueLive, liveModelExecutors, previewContinue } from "@/app/actions/live";
import type { ExecutorChoice } from "@/lib/live/types";
import type { ForkOverride } from "@/lib/replay";
import { JsonTree } from "@/components/ui/json-tree";
import { SafeText } from "@/components/ui/safe-text";
import { ConfirmFields, confirmationInput, useConfirmation } from "./confirm-fields";
import { useLiveCall } from "./live-actions";

type Preview = Extract<Awaited<ReturnType<typeof previewContinue>>, { ok: true }>["value"];
type Done = Extract<Awaited<ReturnType<typeof continueLive>>, { ok: true }>["value"];

const STOP: Record<string, string> = {
  "final-answer": "the agent answered",
  "write-needs-confirmation": "stopped at a write, which was not sent",
  "read-needs-executor": "stopped: a read the recording cannot answer, and no read executor",
  "max-turns": "stopped at the bound on model turns",
  "model-error": "the model executor failed",
};

/**
 * "Continue live" from the active what-if fork, or (no override) from the frame under the
 * playhead as recorded, which is how a branch goes on after the write it stopped at was
 * re-executed: the server says which model executors this viewer may use (none: nothing
 * is offered); a preview shows what the model gets first; a reason and a fresh
 * confirmation send it; the branch run then opens beside its original.
 */
export function ContinueLive({ run, fork, signedIn }: { run: string; fork: { seq: number; override?: ForkOverride }; signedIn: boolean }) {
  const id = useId();
  const router = useRouter();
  const [executors, setExecutors] = useState<ExecutorChoice[] | null>(null);
  const [executor, setExecutor] = useState("");
  const [maxTurns, setMaxTurns] = useState("4");
  const [sandboxOnly, setSandboxOnly] = useState(false);
  const [preview, setPreview] = useState<Preview | null>(null);
  const [done, setDone] = useState<Done | null>(null);
  const confirmation = useConfirmation();
  const load = useLiveCall();
  const act = useLiveCall();
  const forkKey = JSON.stringify(fork);

  useEffect(() => {
    let live = true;
    liveModelExecutors({ run }).then(
      (r) => {
        if (!live || !r.ok) return;
        setExecutors(r.value);
        setExecutor(r.value[0]?.id ?? "");
      },
      () => undefined,
    );
    return () => {
      live = false;
    };
  }, [run]);
  // a preview belongs to one fork: another fork needs its own
  const [previewFor, setPreviewFor] = useState(forkKey);
  if (previewFor !== forkKey) {
    setPreviewFor(forkKey);
    setPreview(null);
    setDone(null);
  }

  if (!executors || executors.length === 0) return null;
  const turns = /^\d{1,2}$/.test(maxTurns.trim()) ? Number(maxTurns.trim()) : 4;
  const input = { run, seq: fork.seq, override: fork.override, executor, maxTurns: turns, sandboxOnly };
  const reset = () => {
    setPreview(null);
    setDone(null);
  };

  return (
    <section className="live-actions" aria-label="Continue live" data-testid="continue-live">
      <h3>{fork.override === undefined ? `Continue live from #${fork.seq}, as recorded` : "Continue live"}</h3>
      <p className="muted">
        Calls the model executor from{" "}
        {fork.override === undefined ? "this event with the recorded context" : "the fork with the edited context"}. Reads are answered from
        the recording when the arguments are the same, otherwise by the read executor; a write stops the continuation (or is blocked,
        sandbox-only). The result is a new branch run; the privileged-action log gets an entry.
      </p>
      <div className="live-row">
        <label>
          Model executor{" "}
          <select
            value={executor}
            onChange={(e) => {
              setExecutor(e.target.value);
              reset();
            }}
            aria-label="Model executor"
          >
            {executors.map((e) => (
              <option key={e.id} value={e.id}>
                {e.environment} · {e.name} · {e.url}
              </option>
            ))}
          </select>
        </label>
        <label htmlFor={`${id}-turns`}>
          Max model turns
          <input
            id={`${id}-turns`}
            type="number"
            min={1}
            max={20}
            value={maxTurns}
            onChange={(e) => {
              setMaxTurns(e.target.value);
              reset();
            }}
            style={{ width: 64 }}
          />
        </label>
        <label>
          <input
            type="checkbox"
            checked={sandboxOnly}
            onChange={(e) => {
              setSandboxOnly(e.target.checked);
              reset();
            }}
          />
          sandbox-only (block writes)
        </label>
        <button
          type="button"
          disabled={load.pending || !executor}
          onClick={() => {
            setDone(null);
            load.call(() => previewContinue(input), setPreview);
          }}
        >
          Preview continue live
        </button>
      </div>
      {load.error ? (
        <p role="alert" className="admin-error">
          <SafeText value={load.error} />
        </p>
      ) : null}
      {preview ? (
        <form
          className="live-form"
          aria-label="Continue live preview"
          data-testid="continue-preview"
          onSubmit={(e) => {
            e.preventDefault();
            act.call(
              () =>
                continueLive({
                  ...input,
                  digest: preview.digest,
                  ...confirmationInput(confirmation),
                }),
              (v) => {
                setDone(v);
                // opens at the fork: the first divergence is there or after it
                router.push(`/runs/${encodeURIComponent(v.branch)}/replay?event=${v.forkOf.seq}`);
              },
            );
          }}
        >
          <h4>Preview: what the model gets first</h4>
          <p>
            From #{preview.seq}
            {preview.edited.length > 0 ? ` (the edit at #${preview.edited.join(", #")})` : ""}, model <b>{preview.model}</b> at{" "}
            <span className="mono">{preview.request?.url ?? `${preview.executor.url}/chat/completions`}</span> on{" "}
            <b>{preview.executor.environment}</b>: {preview.messages.length} message{preview.messages.length === 1 ? "" : "s"}, at most{" "}
            {preview.policy.maxTurns} model turn{preview.policy.maxTurns === 1 ? "" : "s"}.
          </p>
          {preview.pending.length > 0 ? (
            <p>First answered: {preview.pending.map((c) => c.name).join(", ")} (tool calls of the fork&apos;s turn with no result yet).</p>
          ) : null}
          <p>
            Reads not in the recording:{" "}
            {preview.readExecutors.length > 0
              ? preview.readExecutors.map((e) => `${e.name === "*" ? "every tool" : e.name} (${e.url})`).join(", ")
              : "no read executor: the continuation stops at one"}
            . Writes:{" "}
            {preview.policy.writes === "block" ? "blocked, the agent gets an error (sandbox-only)" : "stop the continuation, unsent"}.
          </p>
          <JsonTree value={preview.messages as never} label="Messages" />
          <div className="live-fields">
            <ConfirmFields
              signedIn={signedIn}
              needsName={preview.needsOperationName}
              operation={preview.operation}
              confirmation={confirmation}
            />
            <button type="submit" className="primary" disabled={act.pending}>
              {act.pending ? "Continuing…" : "Continue live"}
            </button>
          </div>
          {act.error ? (
            <p role="alert" className="admin-error">
              <SafeText value={act.error} />
            </p>
          ) : null}
        </form>
      ) : null}
      {done ? (
        <p className="live-done" role="status" data-testid="continue-done">
          Branch run <span className="mono">{done.branch}</span>: {STOP[done.stop] ?? done.stop} after {done.modelCalls} model call
          {done.modelCalls === 1 ? "" : "s"} · log entry {done.auditSeq}. Opening it beside the original…
        </p>
      ) : null}
    </section>
  );
}
