"use client";
import { useRouter } from "next/navigation";
import { useCallback, useState, useTransition } from "react";

type Result<R> = { ok: true; value: R } | { ok: false; status: number; error: string };

/**
 * Calls an admin server action: while it runs `pending` is true, a refusal's message is
 * `error` (the server's words, shown as they are), and success refreshes the page's data.
 */
export function useAdminAction() {
  const router = useRouter();
  const [pending, start] = useTransition();
  const [error, setError] = useState<string | null>(null);
  const run = useCallback(
    <R,>(call: () => Promise<Result<R>>, onOk?: (value: R) => void) =>
      start(async () => {
        setError(null);
        let r: Result<R>;
        try {
          r = await call();
        } catch {
          setError("the server could not be reached; nothing was changed");
          return;
        }
        if (!r.ok) {
          setError(r.error);
          return;
        }
        onOk?.(r.value);
        router.refresh();
      }),
    [router],
  );
  return { pending, error, setError, run };
}

/** A refusal, next to the control that caused it. */
export function ActionError({ error }: { error: string | null }) {
  if (!error) return null;
  return (
    <p role="alert" className="admin-error">
      {error}
    </p>
  );
}
