"use client";
import { useState } from "react";
import { setProjectPayloadRetention } from "@/app/actions/admin";
import { ActionError, useAdminAction } from "./use-admin-action";

/** Days after which a purge drops a project's payloads, keeping summaries, findings and hashes (empty: never). */
export function PayloadRetentionForm({ project, days }: { project: string; days: number | null }) {
  const [value, setValue] = useState(days === null ? "" : String(days));
  const { pending, error, setError, run } = useAdminAction();
  const saved = value.trim() === (days === null ? "" : String(days));
  return (
    <form
      className="retention-form"
      aria-label={`Payload policy of ${project}`}
      onSubmit={(e) => {
        e.preventDefault();
        const text = value.trim();
        if (text !== "" && !/^\d+$/.test(text)) {
          setError("payload retention is whole days, or empty to keep payloads with the run");
          return;
        }
        run(() => setProjectPayloadRetention({ project, days: text === "" ? null : Number(text) }));
      }}
    >
      <input
        aria-label={`Payload days of ${project}`}
        inputMode="numeric"
        value={value}
        onChange={(e) => setValue(e.target.value)}
        placeholder="with run"
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
