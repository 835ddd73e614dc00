import Link from "next/link";
import { refusal } from "@/lib/server/edge";

/** The 403 page: says which role was needed, never what is behind it. */
export default function Forbidden() {
  const { message } = refusal();
  const needed = message || "Your role in this project does not allow this.";
  return (
    <section className="access-denied" aria-labelledby="denied-title">
      <span className="code">403 · Forbidden</span>
      <h1 id="denied-title">You do not have access to this page</h1>
      <p className="needed">{needed}</p>
      <p>Ask an admin of the project for that role, or go back to the runs you can see.</p>
      <Link href="/" prefetch={false}>
        ← Runs
      </Link>
    </section>
  );
}
