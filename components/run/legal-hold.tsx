"use client";
import { useState } from "react";
import { setLegalHold } from "@/app/actions/retention";

/**
 * "Legal hold" on the run header: a badge while the run is held (a purge never removes it),
 * and for an admin of the run's project the button that places or lifts it (logged).
 */
export function LegalHold({ runId, initiallyHeld, canSet }: { runId: string; initiallyHeld: boolean; canSet: boolean }) {
  const [held, setHeld] = useState(initiallyHeld);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  if (!held && !canSet) return null;
  async function toggle() {
    setBusy(true);
    setError(null);
    const r = await setLegalHold({ run: runId, held: !held });
    setBusy(false);
    if (!r.ok) return setError(r.error);
    setHeld(r.value.held);
  }
  return (
    <span className="legal-hold">
      {held ? (
        <span className="badge warn" title="A purge never removes this run until the hold is lifted">
          legal hold
        </span>
      ) : null}
      {canSet ? (
        <button type="button" onClick={() => void toggle()} disabled={busy}>
          {held ? "Lift legal hold" : "Place legal hold"}
        </button>
      ) : null}
      {error ? (
        <span className="form-error" role="alert">
          {error}
        </span>
      ) : null}
    </span>
  );
}
