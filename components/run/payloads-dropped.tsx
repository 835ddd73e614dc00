"use client";
import { createContext, useContext } from "react";

/** When retention dropped the run's payloads (ISO time), or null: read by the inspector's panes. */
export const PayloadsDroppedContext = createContext<string | null>(null);
export const usePayloadsDropped = () => useContext(PayloadsDroppedContext);

/** The run page's and the replay's notice of a run whose payloads retention dropped. */
export function PayloadsDroppedBanner({ at }: { at: string }) {
  return (
    <div className="payloads-dropped-banner" role="note" aria-label="Payloads dropped" data-testid="payloads-dropped">
      <b>Payloads dropped on {at.slice(0, 10)}</b>
      <span>
        by the project&apos;s retention policy: the run&apos;s summary, findings, notes and every event&apos;s type, time, names, status and
        hashes are kept; its contents (inputs, messages, arguments, results) are not.
      </span>
    </div>
  );
}
