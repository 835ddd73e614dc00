"use client";
import { useActionState } from "react";
import { signIn } from "@/app/actions/session";

type State = { error?: string; name?: string } | null;

/** The sign-in form; the server says only "wrong name or password", whichever was wrong. */
export function LoginForm({ next }: { next: string }) {
  const [state, submit, pending] = useActionState<State, FormData>(async (_prev, fd) => {
    // the form is reset after a refusal: the name comes back, the password does not
    const name = String(fd.get("name") ?? "");
    const r = await signIn(fd);
    if (!r.ok) return { error: r.error, name };
    return r.value && "error" in r.value ? { error: r.value.error, name } : null;
  }, null);
  return (
    <form action={submit} className="auth-form" aria-label="Sign in">
      <h1>Sign in to Retrace</h1>
      <label>
        Name
        <input name="name" autoComplete="username" required autoFocus maxLength={64} defaultValue={state?.name} />
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
      <p className="auth-note">No account yet? An admin of your project adds you (Admin → Users). Agents and CI use API keys instead.</p>
    </form>
  );
}
