"use client";
import { useState } from "react";
import { setProjectPayloadRetention, setProjectRetention } from "@/app/actions/admin";
import { ActionError, useAdminAction } from "./use-admin-action";

/** What a project's retention in days applies to: its runs, or only their payloads. */
const KINDS = {
  runs: {
    save: setProjectRetention,
    form: (p: string) => `Retention of ${p}`,
    input: (p: string) => `Retention days of ${p}`,
    placeholder: "forever",
    invalid: "retention is whole days, or empty to keep runs forever",
  },
  payloads: {
    save: setProjectPayloadRetention,
    form: (p: string) => `Payload policy of ${p}`,
    input: (p: string) => `Payload days of ${p}`,
    placeholder: "with run",
    invalid: "payload retention is whole days, or empty to keep payloads with the run",
  },
} as const;

/**
 * A project's retention in days, set by its admin: `runs`, after which a purge deletes its
 * runs (empty: kept forever), or `payloads`, after which a purge drops their payloads and
 * keeps summaries, findings and hashes (empty: kept with the run).
 */
export function RetentionForm({ project, days, of }: { project: string; days: number | null; of: keyof typeof KINDS }) {
  const kind = KINDS[of];
  const [value, setValue] = useState(days === null ? "" : String(days));
  const { pending, error, setError, run } = useAdminAction();
  const saved = value.trim() === (days === null ? "" : String(days));
  return (
    <form
      className="retention-form"
      aria-label={kind.form(project)}
      onSubmit={(e) => {
        e.preventDefault();
        const text = value.trim();
        if (text !== "" && !/^\d+$/.test(text)) {
          setError(kind.invalid);
          return;
        }
        run(() => kind.save({ project, days: text === "" ? null : Number(text) }));
      }}
    >
      <input
        aria-label={kind.input(project)}
        inputMode="numeric"
        value={value}
        onChange={(e) => setValue(e.target.value)}
        placeholder={kind.placeholder}
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
