"use client";
import { useState } from "react";

/** Copies text (computed on click, so a 5 MB value is not held twice while idle). */
export function CopyButton({ text, label = "Copy" }: { text: () => string; label?: string }) {
  const [done, setDone] = useState<"" | "ok" | "fail">("");
  return (
    <button
      type="button"
      onClick={async () => {
        try {
          await navigator.clipboard.writeText(text());
          setDone("ok");
        } catch {
          setDone("fail");
        }
        setTimeout(() => setDone(""), 1500);
      }}
    >
      {done === "ok" ? "Copied" : done === "fail" ? "Copy failed" : label}
    </button>
  );
}
