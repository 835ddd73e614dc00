"use client";
import { messageParts, ruleText, seqsNamed } from "@/lib/analyze";
import type { FindingItem } from "@/lib/view/api-types";
import { evidenceFor } from "@/lib/view/evidence";
import { SafeText } from "@/components/ui/safe-text";
import { Jump } from "@/components/inspector/bits";
import { CopyLink } from "./copy-link";
import { useInspect } from "./use-run-data";

const QUOTES_NAMED = new Set(["effect.retry-after-unknown", "effect.duplicate", "approval.reused"]);

/** A finding's exact message with every seq it names as a jump to that event. */
function FindingMessage({ message }: { message: string }) {
  return (
    <>
      {messageParts(message).map((p, i) =>
        "seq" in p ? (
          <Jump key={i} seq={p.seq}>
            {p.text}
          </Jump>
        ) : (
          <SafeText key={i} value={p.text} />
        ),
      )}
    </>
  );
}

/**
 * One finding for a person: the plain title, why it matters and what to check, the exact
 * message (seqs as jumps), and the evidence quoted from the events it names.
 */
export function FindingCard({
  runId,
  finding,
  policy,
  compact = false,
}: {
  runId: string;
  finding: FindingItem;
  policy: Record<string, unknown> | null;
  /** a warning beside an error: its title, the rest on demand */
  compact?: boolean;
}) {
  const text = ruleText(finding.rule);
  // only rules whose message names an earlier call fetch it (a gap's seqs name missing events)
  const namedSeq = QUOTES_NAMED.has(finding.rule) ? (seqsNamed(finding.message).find((s) => s !== finding.seq) ?? null) : null;
  const named = useInspect(runId, namedSeq, false);
  const own = useInspect(runId, finding.seq, false);
  const lines = evidenceFor(
    finding,
    named.data && named.data.seq === namedSeq ? named.data : null,
    namedSeq,
    own.data && own.data.seq === finding.seq ? own.data : null,
    policy,
  );
  const head = (
    <span className="ftitle">
      <b>{text.title}</b> <span className={`badge ${finding.severity === "error" ? "bad" : "warn"}`}>{finding.severity}</span>{" "}
      <span className="mono frule">{finding.rule}</span>
    </span>
  );
  if (compact)
    return (
      <details className={`finding-box ${finding.severity}`} role="note" aria-label={`Finding: ${text.title}`}>
        <summary>{head}</summary>
        <FindingBody runId={runId} finding={finding} lines={lines} />
      </details>
    );
  return (
    <div className={`finding-box ${finding.severity}`} role="note" aria-label={`Finding: ${text.title}`}>
      {head}
      <FindingBody runId={runId} finding={finding} lines={lines} />
    </div>
  );
}

function FindingBody({ runId, finding, lines }: { runId: string; finding: FindingItem; lines: ReturnType<typeof evidenceFor> }) {
  const text = ruleText(finding.rule);
  return (
    <>
      {text.why ? <p className="fwhy">{text.why}</p> : null}
      {lines.length > 0 ? (
        <dl className="fevidence" aria-label="Evidence">
          {lines.map((l, i) => (
            <div key={i}>
              <dt>
                {l.label}
                {l.seq !== null ? (
                  <>
                    {" "}
                    <Jump seq={l.seq} />
                  </>
                ) : null}
              </dt>
              <dd>
                <SafeText value={l.text} />
              </dd>
            </div>
          ))}
        </dl>
      ) : null}
      {text.check ? (
        <p className="fcheck">
          <b>Check:</b> {text.check}
        </p>
      ) : null}
      <p className="fexact">
        <span className="sub">Analyzer: </span>
        <FindingMessage message={finding.message} />{" "}
        <CopyLink runId={runId} seq={finding.seq} tab="findings" what={`finding #${finding.seq}: ${text.title}`} />
      </p>
    </>
  );
}
