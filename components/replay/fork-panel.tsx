"use client";
import { useId, useState } from "react";
import type { ForkSpec } from "@/lib/replay";
import { CopyButton } from "@/components/ui/copy-button";
import { ContinueLive } from "@/components/live/continue-live";
import { describeOverride } from "./describe";
import {
  applicableKinds,
  cliCommand,
  draftToSpec,
  OVERRIDE_KINDS,
  type DraftResult,
  type ForkDraft,
  type OverrideKind,
} from "./fork-params";
import { useReplayStore } from "./replay-store";
import { useInspect } from "@/components/run/use-run-data";

interface Policy {
  requireApproval?: unknown;
  maxSteps?: unknown;
}

function prettyJson(v: unknown): string {
  try {
    return JSON.stringify(v, (_k, x: unknown) => (typeof x === "bigint" ? x.toString() : x), 2) ?? "";
  } catch {
    return "";
  }
}

function firstKind(kinds: Set<OverrideKind>): OverrideKind {
  for (const k of ["deny", "toolResult", "modelOutput", "policy"] as const) if (kinds.has(k)) return k;
  return "policy";
}

/**
 * The what-if form: where to fork (the frame under the playhead by default, or the seq
 * typed in, whose event prefills the JSON) and what to
 * change. Applying it writes the fork into the URL, which is what replays it, so a fork
 * can be shared as a link and reloaded.
 */
export function ForkPanel({
  run,
  policy,
  fork,
  forkError,
  onApply,
  live = null,
}: {
  run: string;
  policy: Policy | null;
  fork: ForkSpec | null;
  forkError: string | null;
  onApply: (spec: ForkSpec | null) => void;
  /** what the server decided this viewer may do live here (null: nothing offered) */
  live?: { offer: boolean; signedIn: boolean } | null;
}) {
  const view = useReplayStore((s) => s.view);
  const result = useReplayStore((s) => s.result);
  const frameOfSeq = useReplayStore((s) => s.frameOfSeq);
  const id = useId();
  const frameSeq = view?.frame.seq ?? 0;
  const typeAt = (seq: number) => {
    const f = frameOfSeq.get(seq);
    return f === undefined || !result ? null : (result.frames.typeNames[result.frames.type[f]] ?? null);
  };
  // the event the form forks at: the playhead's frame, or the one typed into "Fork at seq"
  // (fetched like the run page's inspector), so the JSON is prefilled from that event
  type Source = { event: { type: string; data: Record<string, unknown> } | null; state: unknown };
  const playhead: Source = { event: view?.frame.recorded ?? view?.frame.event ?? null, state: view?.state ?? {} };
  const jsonFor = (kind: OverrideKind, src: Source = playhead): string => {
    const e = src.event;
    if (kind === "state") return prettyJson(src.state ?? {});
    if (kind === "toolResult") {
      if (e?.type === "tool.result") {
        const { status, result: value, error } = e.data;
        return prettyJson({ status, ...(value !== undefined ? { result: value } : {}), ...(error !== undefined ? { error } : {}) });
      }
      return prettyJson({ status: "error", error: "simulated failure" });
    }
    if (kind === "modelOutput")
      return prettyJson(e?.type === "model.response" && e.data.output !== undefined ? e.data.output : { text: "" });
    return "";
  };
  const initialKind = firstKind(applicableKinds(view?.frame.recorded?.type ?? view?.frame.event.type ?? null));
  const [draft, setDraft] = useState<ForkDraft>(() => ({
    seq: String(fork?.seq ?? frameSeq),
    kind: initialKind,
    requireApproval: Array.isArray(policy?.requireApproval)
      ? policy.requireApproval.filter((t): t is string => typeof t === "string").join(", ")
      : "",
    maxSteps: typeof policy?.maxSteps === "number" ? String(policy.maxSteps) : "",
    json: jsonFor(initialKind),
  }));
  const [outcome, setOutcome] = useState<DraftResult | null>(null);
  const seqNum = /^\d+$/.test(draft.seq.trim()) ? Number(draft.seq.trim()) : null;
  const typeAtSeq = seqNum === null ? null : typeAt(seqNum);
  const typedSeq = seqNum !== null && seqNum !== frameSeq && typeAtSeq !== null ? seqNum : null;
  const typed = useInspect(run, typedSeq, draft.kind === "state");
  const typedSource: Source | null =
    typedSeq !== null && typed.data?.seq === typedSeq ? { event: typed.data.event.event, state: typed.data.state?.after ?? {} } : null;
  const sourceAt = (seq: number | null): Source | null => (seq === frameSeq ? playhead : seq === typedSeq ? typedSource : null);
  // JSON typed by hand is kept; otherwise it follows the seq and kind chosen
  const [edited, setEdited] = useState(false);
  const [prefilled, setPrefilled] = useState<string | null>(null);
  const prefillKey = typedSource ? `${typedSeq}:${draft.kind}:${draft.kind === "state" ? "s" : ""}` : null;
  if (prefillKey !== null && typedSource && prefillKey !== prefilled && !edited) {
    setPrefilled(prefillKey);
    setDraft((d) => ({ ...d, json: jsonFor(d.kind, typedSource) }));
  }
  const kinds = applicableKinds(typeAtSeq);
  const error = outcome && !outcome.ok ? outcome : null;
  const set = (patch: Partial<ForkDraft>) => {
    setDraft((d) => ({ ...d, ...patch }));
    setOutcome(null);
  };
  const errId = `${id}-error`;
  const invalid = (field: string) => (error?.field === field ? { "aria-invalid": true as const, "aria-describedby": errId } : {});

  return (
    <div className="rp-panel">
      {fork ? (
        <div className="rp-active-fork" aria-label="Active fork">
          <div>
            <b>Active fork</b> at seq {fork.seq}: {describeOverride(fork.override)}
          </div>
          {forkError ? (
            <div className="error" style={{ color: "var(--bad)" }}>
              It cannot be applied: {forkError}
            </div>
          ) : null}
          <div className="row" style={{ display: "flex", gap: 6, flexWrap: "wrap" }}>
            <CopyButton text={() => window.location.href} label="Copy link to this fork" />
            <button type="button" onClick={() => onApply(null)}>
              Back to reconstruct
            </button>
          </div>
          <div className="hint" style={{ color: "var(--muted)", fontSize: 12 }}>
            The same fork from the command line, on the run exported as run.jsonl:
          </div>
          <pre className="mono">{cliCommand(run, fork)}</pre>
          {live?.offer && !forkError ? <ContinueLive run={run} fork={fork} signedIn={live.signedIn} /> : null}
        </div>
      ) : live?.offer && view ? (
        <ContinueLive run={run} fork={{ seq: frameSeq }} signedIn={live.signedIn} />
      ) : null}
      <form
        className="rp-form"
        aria-label="What-if fork"
        onSubmit={(e) => {
          e.preventDefault();
          const r = draftToSpec(draft, {
            requireApproval: Array.isArray(policy?.requireApproval)
              ? policy.requireApproval.filter((t): t is string => typeof t === "string")
              : undefined,
            maxSteps: typeof policy?.maxSteps === "number" ? policy.maxSteps : undefined,
          });
          setOutcome(r);
          if (r.ok) onApply(r.spec);
        }}
      >
        <div className="field">
          <label htmlFor={`${id}-seq`} style={{ color: "var(--fg)" }}>
            Fork at seq
          </label>
          <div className="row">
            <input
              id={`${id}-seq`}
              type="number"
              min={0}
              step={1}
              value={draft.seq}
              onChange={(e) => {
                const v = e.target.value;
                const n = /^\d+$/.test(v.trim()) ? Number(v.trim()) : null;
                const at = n === null ? new Set<OverrideKind>() : applicableKinds(typeAt(n));
                const kind = at.has(draft.kind) || n === null ? draft.kind : firstKind(at);
                const src = n === frameSeq ? playhead : null;
                set({ seq: v, kind, ...(src && !edited ? { json: jsonFor(kind, src) } : {}) });
              }}
              {...invalid("seq")}
            />
            <button
              type="button"
              onClick={() => {
                setEdited(false);
                set({ seq: String(frameSeq), json: jsonFor(draft.kind) });
              }}
              disabled={!view}
            >
              Use the frame under the playhead (#{frameSeq})
            </button>
          </div>
          <span className="hint">
            {typeAtSeq ? `seq ${seqNum}: ${typeAtSeq}` : seqNum !== null ? `the run has no event with seq ${seqNum}` : ""}
          </span>
        </div>
        <fieldset>
          <legend>What to change</legend>
          {OVERRIDE_KINDS.map((k) => (
            <label key={k.kind} title={kinds.has(k.kind) ? undefined : `not at a ${typeAtSeq ?? "missing event"}`}>
              <input
                type="radio"
                name={`${id}-kind`}
                value={k.kind}
                checked={draft.kind === k.kind}
                disabled={!kinds.has(k.kind)}
                onChange={() => {
                  const src = sourceAt(seqNum);
                  set({ kind: k.kind, ...(src && !edited ? { json: jsonFor(k.kind, src) } : {}) });
                }}
              />
              {k.label}
            </label>
          ))}
        </fieldset>
        {draft.kind === "policy" ? (
          <fieldset>
            <legend>Policy from the fork seq on</legend>
            <div className="field">
              <label htmlFor={`${id}-ra`} style={{ color: "var(--fg)" }}>
                requireApproval (tool names, comma-separated)
              </label>
              <input
                id={`${id}-ra`}
                type="text"
                value={draft.requireApproval}
                onChange={(e) => set({ requireApproval: e.target.value })}
                {...invalid("requireApproval")}
              />
            </div>
            <div className="field">
              <label htmlFor={`${id}-ms`} style={{ color: "var(--fg)" }}>
                maxSteps
              </label>
              <input
                id={`${id}-ms`}
                type="text"
                inputMode="numeric"
                value={draft.maxSteps}
                onChange={(e) => set({ maxSteps: e.target.value })}
                {...invalid("maxSteps")}
              />
              <span className="hint">Steps before the fork seq count too. Empty keeps the run&apos;s.</span>
            </div>
          </fieldset>
        ) : null}
        {draft.kind === "toolResult" || draft.kind === "modelOutput" || draft.kind === "state" ? (
          <div className="field">
            <label htmlFor={`${id}-json`} style={{ color: "var(--fg)" }}>
              {draft.kind === "toolResult"
                ? "Tool result fields (JSON object: status, result, error…)"
                : draft.kind === "modelOutput"
                  ? "Model output (JSON object: text, toolCalls…)"
                  : "Run state right after the fork seq (any JSON)"}
            </label>
            <textarea
              id={`${id}-json`}
              spellCheck={false}
              value={draft.json}
              onChange={(e) => {
                setEdited(true);
                set({ json: e.target.value });
              }}
              {...invalid("json")}
            />
          </div>
        ) : null}
        {error ? (
          <div id={errId} className="error" role="alert">
            {error.error}
          </div>
        ) : null}
        <div className="row">
          <button type="submit" className="primary">
            Run what-if
          </button>
          <span className="hint">The fork goes into the URL: share it as a link.</span>
        </div>
      </form>
    </div>
  );
}
