"use client";
import { humanSeconds } from "@/lib/analyze";
import type { InspectAnswer } from "@/lib/view/api-types";
import { formatTimestamp } from "@/lib/view/format";
import { ageText, policyValueText, retrievedDocuments } from "@/lib/view/human";
import { JsonTree } from "@/components/ui/json-tree";
import { SafeText } from "@/components/ui/safe-text";
import { dataOf, Fields, Value } from "./bits";

/**
 * A retrieval: the query, and each document with when it was indexed and how old it was
 * when retrieved, against the age the run's policy allows: the retrieval verdict sent with
 * the answer (lib/semantics, what retrieval.stale is reported from), never decided here.
 */
export function RetrievalPane({ answer, policy }: { answer: InspectAnswer; policy: Record<string, unknown> | null }) {
  const d = dataOf(answer.event);
  const verdict = answer.verdicts.retrieval;
  const max = verdict?.maxAgeSeconds ?? policy?.retrievalMaxAgeSeconds;
  const docs = retrievedDocuments(d, verdict);
  return (
    <div className="pane">
      <h3>Query</h3>
      {typeof d.query === "string" ? (
        <SafeText value={d.query} limit={2000} className="text-block" />
      ) : (
        <JsonTree value={d.query ?? null} label="Query" />
      )}
      <Fields
        rows={[
          ["documents", String(docs.length)],
          ["allowed age", typeof max === "number" ? policyValueText("retrievalMaxAgeSeconds", max) : "no limit in the run's policy"],
        ]}
      />
      <ol className="retrieval-docs" aria-label="Retrieved documents">
        {docs.map((doc, i) => (
          <li key={i} className={doc.stale ? "stale" : undefined} aria-label={`Document ${doc.id ?? i + 1}`}>
            <Fields
              rows={[
                ["id", <Value key="i" v={doc.id ?? undefined} />],
                ...(doc.version !== null ? ([["version", <Value key="v" v={doc.version} />]] as [string, React.ReactNode][]) : []),
                ...(doc.uri !== null ? ([["uri", <Value key="u" v={doc.uri} />]] as [string, React.ReactNode][]) : []),
                [
                  "indexed at",
                  doc.indexedAt !== null ? (
                    Number.isFinite(Date.parse(doc.indexedAt)) ? (
                      <span key="t" title={doc.indexedAt}>
                        {formatTimestamp(doc.indexedAt)}
                      </span>
                    ) : (
                      <SafeText key="t" value={doc.indexedAt} className="mono" />
                    )
                  ) : (
                    "not recorded"
                  ),
                ],
                [
                  "age",
                  doc.ageSeconds !== null ? (
                    <span key="a" className={doc.stale ? "bad" : undefined} title={max !== undefined ? `allowed: ${max} s` : undefined}>
                      {ageText(doc.ageSeconds)} when retrieved
                      {doc.stale
                        ? `, older than the allowed ${humanSeconds(Number(max))}`
                        : doc.stale === false
                          ? `, within the allowed ${humanSeconds(Number(max))}`
                          : ""}
                    </span>
                  ) : (
                    "unknown"
                  ),
                ],
                ...(doc.score !== null ? ([["score", String(doc.score)]] as [string, React.ReactNode][]) : []),
              ]}
            />
            {doc.content !== undefined ? (
              typeof doc.content === "string" ? (
                <SafeText value={doc.content} limit={1000} className="text-block" />
              ) : (
                <JsonTree value={doc.content} label="Content" />
              )
            ) : null}
          </li>
        ))}
      </ol>
    </div>
  );
}
