import { CopyButton } from "@/components/ui/copy-button";
import { UPLOAD_EXTENSIONS } from "@/lib/view/upload-text";

/** No runs (or none matching): how to send one, with commands that work when pasted. */
export function EmptyState({ origin, filtered, onClearFilters }: { origin: string; filtered: boolean; onClearFilters: () => void }) {
  const curl = `curl -X POST --data-binary @run.jsonl -H 'content-type: application/x-ndjson' ${origin}/api/journals`;
  const cli = "npm run -s retrace -- import run.jsonl";
  return (
    <section className="empty-state" aria-labelledby="empty-title">
      <h2 id="empty-title">{filtered ? "No runs match these filters" : "No runs yet"}</h2>
      {filtered ? (
        <p>
          <button type="button" onClick={onClearFilters}>
            Clear filters
          </button>
        </p>
      ) : null}
      <p>Send a journal (NDJSON, one event per line, optionally gzip-compressed) in any of these ways:</p>
      <ol>
        <li>
          Over HTTP:
          <div className="cmd">
            <pre aria-label="curl command">{curl}</pre>
            <CopyButton text={() => curl} />
          </div>
        </li>
        <li>
          From a checkout of Retrace, into the database named by DATABASE_URL:
          <div className="cmd">
            <pre aria-label="CLI command">{cli}</pre>
            <CopyButton text={() => cli} />
          </div>
        </li>
        <li>
          With the Upload runs button above, or by dropping files onto this page: Retrace journals and the trace exports and agent sessions
          it reads ({UPLOAD_EXTENSIONS.join(", ")}), told apart by their content.
        </li>
      </ol>
      <p style={{ color: "var(--muted)" }}>
        The format is described at <a href="/schema/journal-v1.json">/schema/journal-v1.json</a> (JSON Schema).
      </p>
    </section>
  );
}
