"use client";
import { useState } from "react";
import { setProjectRetention } from "@/app/actions/admin";
import { ActionError, useAdminAction } from "./use-admin-action";

/** A project's retention in days (empty: runs are kept forever), set by its admin. */
export function RetentionForm({ project, days }: { project: string; days: number | null }) {
  const [value, setValue] = useState(days === null ? "" : String(days));
  const { pending, error, setError, run } = useAdminAction();
  const saved = value.trim() === (days === null ? "" : String(days));
  return (
    <form
      className="retention-form"
      aria-label={`Retention of ${project}`}
      onSubmit={(e) => {
        e.preventDefault();
        const text = value.trim();
        if (text !== "" && !/^\d+$/.test(text)) {
          setError("retention is whole days, or empty to keep runs forever");
          return;
        }
        run(() => setProjectRetention({ project, days: text === "" ? null : Number(text) }));
      }}
    >
      <input
        aria-label={`Retention days of ${project}`}
        inputMode="numeric"
        value={value}
        onChange={(e) => setValue(e.target.value)}
        placeholder="forever"
        size={7}
        disabled={pending}
      />
      <span className="field-note">days</span>
      <button type="submit" disabled={pending || saved}>
        {pending ? "Saving…" : "Save"}
      </button>
      <ActionError error={error} />
    </form>
  );
}
