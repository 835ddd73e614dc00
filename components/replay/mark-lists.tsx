"use client";
import { jsonText } from "@/lib/compare/json-diff";
import { Segments } from "@/components/ui/safe-text";
import { useReplayStore, useReplayStoreApi } from "./replay-store";

function useJump() {
  const api = useReplayStoreApi();
  return (seq: number) => {
    const s = api.getState();
    const frame = s.frameOfSeq.get(seq);
    if (frame === undefined) return;
    s.setPlaying(false);
    s.setCursor(frame);
    s.setTab("frame");
  };
}

/** Where the journal disagrees with the reconstruction; each item jumps to its event. */
export function DivergenceList() {
  const result = useReplayStore((s) => s.result);
  const jump = useJump();
  if (!result) return null;
  const list = result.divergences;
  const first = result.summary.firstMeaningful;
  return (
    <div>
      <div className="rp-summary" data-testid="divergence-summary">
        {list.length === 0 ? (
          <span>
            <b>0 divergences</b>: the recording and the reconstruction agree.
          </span>
        ) : (
          <span>
            <b>
              {list.length} divergence{list.length === 1 ? "" : "s"}
            </b>
            {first ? `, first meaningful at seq ${first.seq}` : ""}
          </span>
        )}
      </div>
      {list.length === 0 ? null : (
        <ul className="rp-list" aria-label="Divergences">
          {list.map((d, i) => (
            <li key={i}>
              <button type="button" onClick={() => jump(d.seq)} aria-label={`seq ${d.seq} ${d.kind}: ${d.reason}`}>
                <div className="head">
                  <span className="seq">#{d.seq}</span>
                  <span className="kind">{d.kind}</span>
                  {d.meaningful ? null : <span className="hypo">follows from seq {d.causedBy}</span>}
                </div>
                <div className="reason">
                  <Segments text={d.reason} />
                </div>
                <div className="values">
                  replay derived {jsonText(d.expected, 100)} · journal recorded {jsonText(d.actual, 100)}
                </div>
              </button>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

/** What the fork changes: each item jumps to its event. */
export function ChangeList() {
  const result = useReplayStore((s) => s.result);
  const jump = useJump();
  if (!result) return null;
  const fork = result.summary.fork;
  if (!fork) return <div className="rp-empty">No fork: open the Fork tab to ask what would have happened.</div>;
  const list = result.changes;
  return (
    <div>
      <div className="rp-summary" data-testid="change-summary">
        <span>
          <b>
            {list.length} change{list.length === 1 ? "" : "s"}
          </b>
          {fork.firstChange ? `, first at seq ${fork.firstChange.seq}` : ": the fork changes nothing the replay can derive"}
        </span>
        {fork.firstStale !== null ? <span>stale from seq {fork.firstStale}</span> : null}
        {fork.stoppedAt !== null ? <span>the fork&apos;s run stops at seq {fork.stoppedAt}</span> : null}
      </div>
      {list.length === 0 ? null : (
        <ul className="rp-list" aria-label="Fork changes">
          {list.map((c, i) => (
            <li key={i}>
              <button type="button" onClick={() => jump(c.seq)} aria-label={`seq ${c.seq} ${c.kind}: ${c.reason}`}>
                <div className="head">
                  <span className="seq">#{c.seq}</span>
                  <span className="kind">{c.kind}</span>
                  {c.hypothetical ? <span className="hypo">hypothetical: assumes the run went on as recorded</span> : null}
                </div>
                <div className="reason">
                  <Segments text={c.reason} />
                </div>
                <div className="values">
                  recorded {jsonText(c.recorded, 100)} → fork {jsonText(c.forked, 100)}
                </div>
              </button>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
