import Link from "next/link";
import { getDb } from "@/lib/server/db";
import { listRuns, runListQuery } from "@/lib/server/queries";

export const dynamic = "force-dynamic";

export default async function HomePage() {
  const { runs } = await listRuns(getDb(), runListQuery.parse({}));
  return (
    <main>
      <h1>Retrace</h1>
      {runs.length === 0 ? (
        <p>No runs yet. Send a journal: <code>curl -X POST --data-binary @run.jsonl -H &apos;content-type: application/x-ndjson&apos; http://127.0.0.1:3000/api/journals</code></p>
      ) : (
        <table>
          <thead>
            <tr><th>Run</th><th>Workflow</th><th>Status</th><th>Events</th><th>Findings</th><th>Chain</th></tr>
          </thead>
          <tbody>
            {runs.map((r) => (
              <tr key={r.id}>
                <td><Link href={`/runs/${encodeURIComponent(r.id)}`}>{r.id}</Link></td>
                <td>{r.workflow}@{r.workflowVersion}</td>
                <td>{r.status}</td>
                <td>{r.eventCount}</td>
                <td>{r.findingCount}</td>
                <td>{r.chainStatus}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </main>
  );
}
