import { SetupForm } from "@/components/access/setup-form";

export const dynamic = "force-dynamic";
export const metadata = { title: "Set up · Retrace" };

type Props = { searchParams: Promise<{ token?: string | string[] }> };

/** The one-time setup link (`/setup?token=…`, printed at the first start). Reads no data; the action checks the token. */
export default async function SetupPage({ searchParams }: Props) {
  const raw = (await searchParams).token;
  return <SetupForm token={typeof raw === "string" ? raw.slice(0, 200) : ""} />;
}
