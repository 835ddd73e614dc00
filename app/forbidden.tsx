import Link from "next/link";
import { refusal } from "@/lib/server/edge";

/** The 403 page: says what was needed, never what is behind it. */
export default function Forbidden() {
  const { message } = refusal();
  return (
    <section className="access-denied" aria-labelledby="denied-title">
      <h1 id="denied-title">You do not have access to this page</h1>
      <p>{message || "Your role in this project does not allow this."}</p>
      <p>Ask an admin of the project for the role, or go back to the runs you can see.</p>
      <Link href="/" prefetch={false}>
        Runs
      </Link>
    </section>
  );
}
