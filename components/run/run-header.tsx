"use client";
import { policyValueText } from "@/lib/view/human";
import Link from "next/link";
import type { RunIndex } from "@/lib/graph";
import { obj } from "@/lib/journal/values";
import type { RunDetail } from "@/lib/view/api-types";
import { formatCount, formatDuration, formatTimestamp } from "@/lib/view/format";
import { visibleText as vt } from "@/lib/view/text";
import { ChainBadge, StatusBadge } from "@/components/runs/runs-table";
import type { ChainVerdict } from "@/lib/evidence/chain-verdict";
import { healthOf } from "@/lib/view/health";
import { plural } from "@/lib/semantics";
import { ShortcutsButton } from "@/components/ui/shortcuts-dialog";
import { SearchBox } from "./search-box";
import { useEffect, useRef } from "react";
import { useRunStore } from "./run-store";

/**
 * A <details> that shuts on Escape or a click outside it: "versions in force" opens as a
 * popover over the panes, so it must be dismissable like one.
 */
function usePopoverDetails() {
  const ref = useRef<HTMLDetailsElement>(null);
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      const el = ref.current;
      if (e.key !== "Escape" || !el?.open) return;
      el.open = false;
      el.querySelector("summary")?.focus();
    };
    const onDown = (e: PointerEvent) => {
      const el = ref.current;
      if (el?.open && e.target instanceof Node && !el.contains(e.target)) el.open = false;
    };
    document.addEventListener("keydown", onKey);
    document.addEventListener("pointerdown", onDown);
    return () => {
      document.removeEventListener("keydown", onKey);
      document.removeEventListener("pointerdown", onDown);
    };
  }, []);
  return ref;
}

const VERSION_GROUPS = ["prompts", "policies", "tools", "models"] as const;

/** Replay and Compare, opened at the event selected here (the selection is the URL's `event`). */
function RelatedLinks({ runId }: { runId: string }) {
  const seq = useRunStore((s) => s.selectedSeq);
  const id = encodeURIComponent(runId);
  return (
    <>
      <Link href={`/runs/${id}/replay${seq !== null ? `?event=${seq}` : ""}`} prefetch={false}>
        Replay
      </Link>
      <Link href={`/compare?a=${id}${seq !== null ? `&ea=${seq}` : ""}`} prefetch={false}>
        Compare
      </Link>
    </>
  );
}

/** Who ran what, where, with which versions, and whether the record can be trusted. */
export function RunHeader({
  detail,
  index,
  liveMode,
  actions,
  chain,
}: {
  detail: RunDetail;
  index: RunIndex | undefined;
  liveMode: string;
  actions?: React.ReactNode;
  /** the chain verdict (lib/evidence/chain-verdict.ts), the one a bundle's banner shows too */
  chain: ChainVerdict;
}) {
  const versions = obj(detail.header.versions);
  const policy = obj(detail.header.policy);
  const resumeOf = obj(detail.header.resumeOf);
  const forkOf = obj(detail.header.forkOf);
  const replayOf = obj(detail.header.replayOf);
  const gateway = obj(detail.header.gateway);
  const isolation = obj(detail.header.isolation);
  const versionsRef = usePopoverDetails();
  return (
    <header className="run-header">
      <div className="title-row">
        <h1>
          {detail.workflow ? vt(detail.workflow) : "(no workflow)"}
          {detail.workflowVersion ? <span className="mono">@{vt(detail.workflowVersion)}</span> : null}
        </h1>
        <span className="mono" style={{ color: "var(--muted)" }}>
          {detail.id}
        </span>
        <StatusBadge run={detail} />
        {detail.live ? (
          <span className="badge live" title={liveMode === "stream" ? "updating through a live stream" : "updating by polling"}>
            live
          </span>
        ) : null}
        <ChainBadge verdict={chain} prefix="chain " />
        <span
          className={`badge ${detail.fidelity === "replayable" ? "good" : "warn"}`}
          title="replayable: versions and state recorded; trace: imported, best-effort"
        >
          {detail.fidelity}
        </span>
        {detail.findings.length > 0 ? (
          <FindingsBadgeText findings={detail.findings} />
        ) : (
          // green only when the whole verdict is: "no findings" beside a failure is not good news
          <span className={`badge${healthOf(detail).healthy ? " good" : ""}`}>no findings</span>
        )}
        <RelatedLinks runId={detail.id} />
        {actions}
        <ShortcutsButton />
        <SearchBox runId={detail.id} index={index} />
      </div>
      <div className="meta">
        <span>
          environment <b>{detail.environment ? vt(detail.environment) : "—"}</b>
        </span>
        <span>
          initiator <b>{detail.initiator ? vt(detail.initiator) : "—"}</b>
        </span>
        {detail.agent ? (
          <span>
            agent{" "}
            <b>
              {vt(detail.agent)}
              {detail.agentVersion ? `@${vt(detail.agentVersion)}` : ""}
            </b>
          </span>
        ) : null}
        {detail.timesRecorded === false ? (
          <span title="The source recorded no times: events are shown in the order it recorded them">
            times <b>not recorded</b>
          </span>
        ) : (
          <>
            <span>
              started <b>{formatTimestamp(detail.startedAt)}</b>
            </span>
            <span>
              duration <b>{formatDuration(detail.durationMs)}</b>
            </span>
          </>
        )}
        <span>
          events <b>{formatCount(detail.eventCount)}</b>
        </span>
        {index ? (
          <span>
            steps <b>{formatCount(index.steps.length)}</b>
          </span>
        ) : null}
        {detail.errorCount > 0 ? (
          <span className="bad" title="Events that report a failure (a failed call counts once), apart from the analyzer's findings">
            failed events <b className="bad">{formatCount(detail.errorCount)}</b>
          </span>
        ) : null}
        {resumeOf ? (
          <span>
            resumes {vt(String(resumeOf.run ?? "?"))} at {vt(String(resumeOf.checkpoint ?? "?"))}
          </span>
        ) : null}
        {forkOf ? (
          <span>
            fork of {vt(String(forkOf.run ?? "?"))} at seq {vt(String(forkOf.seq ?? "?"))}
          </span>
        ) : null}
        {replayOf && typeof replayOf.run === "string" ? (
          <span data-testid="replay-of">
            replay of{" "}
            <Link href={`/runs/${encodeURIComponent(replayOf.run)}`} prefetch={false}>
              {vt(replayOf.run)}
            </Link>{" "}
            ({detail.status === "succeeded" ? "matched" : detail.status === "failed" ? "diverged" : "running"}) ·{" "}
            <Link href={`/runs/${encodeURIComponent(detail.id)}/replay`} prefetch={false} data-testid="replay-beside-link">
              beside its recording
            </Link>
          </span>
        ) : null}
        {gateway && Array.isArray(gateway.command) ? (
          <span
            data-testid="gateway-command"
            title="The command the gateway ran; retrace replay JOURNAL -- COMMAND runs it again against this recording"
          >
            command <b className="mono">{vt(gateway.command.map(String).join(" "))}</b>
          </span>
        ) : null}
        {isolation ? (
          <span
            data-testid="isolation"
            title={`The agent ran isolated (retrace replay --isolate): in ${String(isolation.cwd ?? "?")}, a scratch copy of ${String(isolation.copiedFrom ?? "?")}`}
          >
            isolated by <b>{vt(String(isolation.tool ?? "?"))}</b> (network: {vt(String(isolation.network ?? "?"))}; cwd{" "}
            <span className="mono">{vt(String(isolation.cwd ?? "?"))}</span>)
          </span>
        ) : null}
        <JudgedBy judgedBy={detail.judgedBy} />
        {detail.tags.length > 0 ? <span>tags {vt(detail.tags.join(", "))}</span> : null}
        <details ref={versionsRef} className="versions-details">
          <summary>versions in force{policy ? " and policy" : ""}</summary>
          <div className="versions" aria-label="Versions in force">
            {VERSION_GROUPS.map((g) => {
              const entries = Object.entries(obj(versions?.[g]) ?? {});
              return (
                <div key={g}>
                  <h3>{g}</h3>
                  {entries.length === 0 ? <div style={{ color: "var(--muted)" }}>—</div> : null}
                  {entries.map(([k, v]) => (
                    <div key={k} className="mono">
                      {vt(k)} <b>{vt(typeof v === "string" ? v : JSON.stringify(v))}</b>
                    </div>
                  ))}
                </div>
              );
            })}
            {policy ? (
              <div>
                <h3>policy</h3>
                {Object.entries(policy).map(([k, v]) => (
                  <div key={k} className="mono">
                    {vt(k)} <b>{vt(policyValueText(k, v))}</b>
                  </div>
                ))}
              </div>
            ) : null}
          </div>
        </details>
      </div>
    </header>
  );
}

/** "3 findings" coloured by the worst of them. */
function FindingsBadgeText({ findings }: { findings: RunDetail["findings"] }) {
  const errors = findings.filter((f) => f.severity === "error").length;
  return (
    <span className={`badge ${errors > 0 ? "bad" : "warn"}`} data-severity={errors > 0 ? "error" : "warning"}>
      {plural(findings.length, "finding")}
    </span>
  );
}

/** Which declared policy judged the run's findings (RunDetail.judgedBy; docs/declared-policy.md). */
function JudgedBy({ judgedBy }: { judgedBy: RunDetail["judgedBy"] }) {
  if (judgedBy === null) return null;
  const text =
    judgedBy.source === "recorded"
      ? "recorded in the journal"
      : judgedBy.source === "import"
        ? "attached at import"
        : `attached to workflow ${vt(judgedBy.workflow)}, version ${judgedBy.version}`;
  return (
    <span data-testid="judged-by" title="The declared policy the findings were computed with">
      policy <b>{text}</b>
    </span>
  );
}
