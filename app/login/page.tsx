import { LoginForm } from "@/components/access/login-form";

export const dynamic = "force-dynamic";
export const metadata = { title: "Sign in · Retrace" };

type Props = { searchParams: Promise<{ next?: string | string[] }> };

/** Reads no data: anyone may see the form. */
export default async function LoginPage({ searchParams }: Props) {
  const raw = (await searchParams).next;
  const next = typeof raw === "string" && raw.startsWith("/") && !raw.startsWith("//") ? raw : "/";
  return <LoginForm next={next} />;
}
