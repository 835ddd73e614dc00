"use client";
import { useActionState } from "react";
import { finishSetup } from "@/app/actions/session";

type State = { error?: string } | null;

/** Makes the first admin from the one-time link the server printed at its first start. */
export function SetupForm({ token }: { token: string }) {
  const [state, submit, pending] = useActionState<State, FormData>(async (_prev, fd) => {
    const r = await finishSetup(fd);
    if (!r.ok) return { error: r.error };
    return r.value && "error" in r.value ? { error: r.value.error } : null;
  }, null);
  return (
    <form action={submit} className="auth-form" aria-label="Create the first admin">
      <h1>Create the first admin</h1>
      <p className="auth-note">
        This server has no accounts yet. The admin you create here can add users, projects and keys; once it exists, every page needs a
        sign-in.
      </p>
      <label>
        Name
        <input name="name" autoComplete="username" required maxLength={64} />
      </label>
      <label>
        Password (at least 10 characters)
        <input name="password" type="password" autoComplete="new-password" required minLength={10} />
      </label>
      <label>
        Password again
        <input name="confirm" type="password" autoComplete="new-password" required minLength={10} />
      </label>
      <input type="hidden" name="token" value={token} />
      {state?.error ? (
        <p role="alert" className="auth-error">
          {state.error}
        </p>
      ) : null}
      <button type="submit" disabled={pending}>
        {pending ? "Creating…" : "Create admin and sign in"}
      </button>
    </form>
  );
}
