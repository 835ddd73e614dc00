import Link from "next/link";

export default function RunNotFound() {
  return (
    <div className="empty-state">
      <h2>No such run</h2>
      <p>
        It may not have been uploaded to this server yet. <Link href="/">Back to the runs list</Link>
      </p>
    </div>
  );
}
