"use client";
/**
 * What every live action asks before it runs (docs/live-actions.md): a reason for the
 * log, the signed-in user's password, and the operation's name typed out where a slip
 * would cost most (production, or no account to re-authenticate). One hook holds the
 * three values and one component draws them, for every live form.
 */
import { useState } from "react";

export interface Confirmation {
  reason: string;
  password: string;
  name: string;
  setReason(s: string): void;
  setPassword(s: string): void;
  setName(s: string): void;
}

export function useConfirmation(): Confirmation {
  const [reason, setReason] = useState("");
  const [password, setPassword] = useState("");
  const [name, setName] = useState("");
  return { reason, password, name, setReason, setPassword, setName };
}

/** The confirmation as the live server actions take it (an empty field is not sent). */
export function confirmationInput(c: Confirmation): { reason: string; password?: string; operationName?: string } {
  return { reason: c.reason, password: c.password || undefined, operationName: c.name || undefined };
}

export function ConfirmFields({
  signedIn,
  needsName,
  operation,
  confirmation: c,
}: {
  signedIn: boolean;
  needsName: boolean;
  operation: string;
  confirmation: Confirmation;
}) {
  return (
    <>
      <label>
        Reason (goes into the log)
        <input value={c.reason} onChange={(e) => c.setReason(e.target.value)} maxLength={500} required />
      </label>
      {signedIn ? (
        <label>
          Your password, to confirm
          <input type="password" value={c.password} onChange={(e) => c.setPassword(e.target.value)} autoComplete="current-password" />
        </label>
      ) : null}
      {needsName || !signedIn ? (
        <label>
          <span>
            Type <code>{operation}</code> to confirm
          </span>
          <input value={c.name} onChange={(e) => c.setName(e.target.value)} autoComplete="off" aria-label="Operation name" />
        </label>
      ) : null}
    </>
  );
}
