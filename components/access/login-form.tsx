"use client";
import { useActionState } from "react";
import { signIn } from "@/app/actions/session";

type State = { error?: string } | null;

/** The sign-in form; the server says only "wrong name or password", whichever was wrong. */
export function LoginForm({ next }: { next: string }) {
  const [state, submit, pending] = useActionState<State, FormData>(async (_prev, fd) => {
    const r = await signIn(fd);
    if (!r.ok) return { error: r.error };
    return r.value && "error" in r.value ? { error: r.value.error } : null;
  }, null);
  return (
    <form action={submit} className="auth-form" aria-label="Sign in">
      <h1>Sign in to Retrace</h1>
      <label>
        Name
        <input name="name" autoComplete="username" required autoFocus maxLength={64} />
      </label>
      <label>
        Password
        <input name="password" type="password" autoComplete="current-password" required />
      </label>
      <input type="hidden" name="next" value={next} />
      {state?.error ? (
        <p role="alert" className="auth-error">
          {state.error}
        </p>
      ) : null}
      <button type="submit" disabled={pending}>
        {pending ? "Signing in…" : "Sign in"}
      </button>
    </form>
  );
}
