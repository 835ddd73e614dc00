"use server";
import { cookies } from "next/headers";
import { redirect } from "next/navigation";
import { z } from "zod";
import { safeNext } from "@/lib/access/safe-next";
import { action, clientAddress, cookieIsSecure } from "@/lib/server/edge";
import { completeSetup, login } from "@/lib/server/access/login";
import { endSession, SESSION_COOKIE } from "@/lib/server/access/sessions";
import { MAX_PASSWORD_LENGTH } from "@/lib/server/access/password";

const loginInput = z.object({
  name: z.string().min(1, "enter your name").max(64),
  password: z.string().min(1, "enter your password").max(MAX_PASSWORD_LENGTH),
  next: z.string().max(2000).optional(),
});

async function setSessionCookie(token: string, secure: boolean) {
  (await cookies()).set(SESSION_COOKIE, token, { httpOnly: true, sameSite: "lax", secure, path: "/" });
}

export const signIn = action({ need: "anyone" }, loginInput, async ({ db, headers }, input) => {
  const jar = await cookies();
  const r = await login(db, input.name, input.password, clientAddress(headers), jar.get(SESSION_COOKIE)?.value);
  if (!r.ok) return { error: r.message };
  await setSessionCookie(r.token, cookieIsSecure(headers));
  // only a path of this server: `next` must not send a signed-in user to another site
  redirect(safeNext(input.next));
});

export const signOut = action({ need: "anyone" }, z.object({}).passthrough(), async ({ db }) => {
  const jar = await cookies();
  const token = jar.get(SESSION_COOKIE)?.value;
  if (token) await endSession(db, token);
  jar.delete(SESSION_COOKIE);
  redirect("/login");
});

const setupInput = z.object({
  token: z.string().min(1).max(200),
  name: z.string().min(1).max(64),
  password: z.string().min(1).max(MAX_PASSWORD_LENGTH),
  confirm: z.string().max(MAX_PASSWORD_LENGTH),
});

export const finishSetup = action({ need: "anyone" }, setupInput, async ({ db, headers }, input) => {
  if (input.password !== input.confirm) return { error: "the two passwords differ" };
  const r = await completeSetup(db, input.token, input.name, input.password);
  if (!r) return { error: "this setup link is no longer valid (an account exists, or the server restarted and printed a new one)" };
  await setSessionCookie(r.token, cookieIsSecure(headers));
  redirect("/");
});
