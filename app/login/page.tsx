import { safeNext } from "@/lib/access/safe-next";
import { LoginForm } from "@/components/access/login-form";

export const dynamic = "force-dynamic";
export const metadata = { title: "Sign in · Retrace" };

type Props = { searchParams: Promise<{ next?: string | string[] }> };

/** Reads no data: anyone may see the form. */
export default async function LoginPage({ searchParams }: Props) {
  return <LoginForm next={safeNext((await searchParams).next)} />;
}
