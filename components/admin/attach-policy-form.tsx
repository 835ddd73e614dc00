"use client";
import { useState } from "react";
import { attachPolicy } from "@/app/actions/admin";
import { ActionError, useAdminAction } from "./use-admin-action";

/** What a file read into the form may hold (the server refuses more anyway). */
const MAX_FILE_BYTES = 200_000;

/** A stored policy (canonical JSON) as the form shows it: indented, to edit into the next version. */
function indented(policy: string | null): string {
  if (policy === null) return "";
  try {
    return JSON.stringify(JSON.parse(policy), null, 2);
  } catch {
    return policy;
  }
}

/**
 * Attaches a declared policy to one workflow: the JSON of `run.start.data.policy`, pasted
 * or read from a file in the browser. The textarea starts with the workflow's latest
 * version, and keeps what was typed through a refusal (the server's words: a JSON path,
 * a line and column, or the role it needs) and a workflow switch.
 */
export function AttachPolicyForm({ workflows }: { workflows: ReadonlyArray<{ workflow: string; latestPolicy: string | null }> }) {
  const [workflow, setWorkflow] = useState(workflows[0]?.workflow ?? "");
  const [texts, setTexts] = useState<Record<string, string>>(() =>
    Object.fromEntries(workflows.map((w) => [w.workflow, indented(w.latestPolicy)])),
  );
  const [done, setDone] = useState<string | null>(null);
  const { pending, error, setError, run } = useAdminAction();
  if (workflows.length === 0) return null;
  const text = texts[workflow] ?? "";
  const setText = (value: string) => setTexts((t) => ({ ...t, [workflow]: value }));
  return (
    <form
      className="attach-policy"
      aria-label="Attach a policy"
      onSubmit={(e) => {
        e.preventDefault();
        setDone(null);
        run(
          () => attachPolicy({ workflow, policy: text }),
          (r) => setDone(`Attached v${r.version} to ${r.workflow}: ${r.runs} ${r.runs === 1 ? "run" : "runs"} judged again.`),
        );
      }}
    >
      <div className="fields policy-fields">
        <label className="policy-workflow">
          Workflow
          <select
            value={workflow}
            onChange={(e) => {
              setWorkflow(e.target.value);
              setDone(null);
              setError(null);
            }}
            disabled={pending}
          >
            {workflows.map((w) => (
              <option key={w.workflow} value={w.workflow}>
                {w.workflow}
              </option>
            ))}
          </select>
        </label>
        <label>
          Or read a JSON file
          <input
            type="file"
            accept=".json,application/json"
            disabled={pending}
            onChange={async (e) => {
              const file = e.target.files?.[0];
              e.target.value = "";
              if (!file) return;
              if (file.size > MAX_FILE_BYTES) {
                setError(`${file.name} is ${file.size.toLocaleString("en-US")} bytes; a policy file has at most 200,000`);
                return;
              }
              setError(null);
              setDone(null);
              setText(await file.text());
            }}
          />
        </label>
      </div>
      <label className="policy-text">
        <span>
          Policy JSON (the <code>policy</code> of <code>run.start</code>: tool contracts, invariants…)
        </span>
        <textarea
          value={text}
          onChange={(e) => setText(e.target.value)}
          rows={10}
          spellCheck={false}
          placeholder={'{\n  "invariants": [{ "id": "modify-once", "kind": "once-per", "tools": ["modify"], "arg": "/order_id" }]\n}'}
          disabled={pending}
        />
      </label>
      <div className="fields">
        <button type="submit" className="primary" disabled={pending || text.trim() === ""}>
          {pending ? "Attaching…" : "Attach as next version"}
        </button>
        <span className="field-note">Every stored run of the workflow is judged again by it, and so are its runs stored later.</span>
      </div>
      <ActionError error={error} />
      {done && !error ? (
        <p role="status" className="admin-done">
          {done}
        </p>
      ) : null}
    </form>
  );
}
