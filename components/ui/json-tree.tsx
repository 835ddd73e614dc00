"use client";
import { useState } from "react";
import { childCount, childPage, jsonKind, preview, toJsonText } from "@/lib/view/json-tree";
import { CopyButton } from "./copy-button";
import { Segments, SafeText } from "./safe-text";

const PAGE = 100;

/**
 * A collapsible JSON tree. Values are rendered as text only; children are shown a page at
 * a time (an object with 10,000 keys opens with 100 of them) and strings are cut.
 */
export function JsonTree({
  value,
  label,
  openDepth = 2,
  copy = true,
}: {
  value: unknown;
  label?: string;
  openDepth?: number;
  copy?: boolean;
}) {
  return (
    <div className="json-tree" aria-label={label ?? "JSON"}>
      {copy ? (
        <div className="json-toolbar">
          <CopyButton text={() => toJsonText(value)} label="Copy JSON" />
        </div>
      ) : null}
      <Node name={null} value={value} depth={0} openDepth={openDepth} />
    </div>
  );
}

function Scalar({ value }: { value: unknown }) {
  switch (jsonKind(value)) {
    case "string":
      return (
        <span className="str">
          &quot;
          <SafeText value={value as string} limit={400} className="" />
          &quot;
        </span>
      );
    case "number":
      return <span className="num">{String(value)}</span>;
    case "boolean":
      return <span className="bool">{String(value)}</span>;
    case "null":
      return <span className="null">null</span>;
    default:
      return <span className="pv">{String(value)}</span>;
  }
}

function Node({ name, value, depth, openDepth }: { name: string | null; value: unknown; depth: number; openDepth: number }) {
  const kind = jsonKind(value);
  const count = childCount(value);
  const [open, setOpen] = useState(depth < openDepth && count <= 200);
  const [limit, setLimit] = useState(PAGE);
  const keyLabel =
    name === null ? null : (
      <>
        <span className="key">
          <Segments text={name} />
        </span>
        :{" "}
      </>
    );
  if (kind !== "object" && kind !== "array") {
    return (
      <div>
        <span className="toggle" aria-hidden="true" />
        {keyLabel}
        <Scalar value={value} />
      </div>
    );
  }
  const isArray = kind === "array";
  return (
    <div>
      <button
        type="button"
        className="toggle"
        aria-expanded={open}
        aria-label={open ? "Collapse" : "Expand"}
        onClick={() => setOpen(!open)}
        disabled={count === 0}
      >
        {count === 0 ? "" : open ? "▾" : "▸"}
      </button>
      {keyLabel}
      {open ? <span className="pv">{isArray ? "[" : "{"}</span> : <span className="pv">{preview(value)}</span>}
      {open ? (
        <>
          <ul>
            {childPage(value, 0, limit).map(([k, v]) => (
              <li key={k}>
                <Node name={isArray ? null : k} value={v} depth={depth + 1} openDepth={openDepth} />
              </li>
            ))}
            {count > limit ? (
              <li>
                <button type="button" className="morebtn" onClick={() => setLimit((n) => n + PAGE * 10)}>
                  show {Math.min(PAGE * 10, count - limit).toLocaleString("en-US")} more of {(count - limit).toLocaleString("en-US")}
                </button>
              </li>
            ) : null}
          </ul>
          <span className="pv">{isArray ? "]" : "}"}</span>
        </>
      ) : null}
    </div>
  );
}
