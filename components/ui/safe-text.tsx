"use client";
import { useState } from "react";
import { revealInvisibles, truncate } from "@/lib/view/text";

const STEP = 20_000;

/**
 * Payload text as text: React escapes it, bidi and zero-width characters are shown as
 * markers, the block is bidi-isolated, and long strings are cut with a way to see more.
 */
export function SafeText({ value, limit = 600, className = "text-block" }: { value: string; limit?: number; className?: string }) {
  const [shown, setShown] = useState(limit);
  const { text, cut } = truncate(value, shown);
  return (
    <>
      <span className={className} dir="auto">
        <Segments text={text} />
        {cut > 0 ? "…" : null}
      </span>
      {cut > 0 ? (
        <span className="more">
          {cut.toLocaleString("en-US")} more characters
          <button type="button" className="link" onClick={() => setShown((n) => n + STEP)}>
            show {Math.min(cut, STEP).toLocaleString("en-US")} more
          </button>
        </span>
      ) : null}
    </>
  );
}

export function Segments({ text }: { text: string }) {
  const segs = revealInvisibles(text);
  if (segs.length === 1 && segs[0].kind === "text") return <>{segs[0].text}</>;
  return (
    <>
      {segs.map((s, i) =>
        s.kind === "text" ? (
          <span key={i}>{s.text}</span>
        ) : (
          <span key={i} className="invisible-char" title={s.label}>
            ⟨{s.code}⟩
          </span>
        ),
      )}
    </>
  );
}
