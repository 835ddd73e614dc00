/** One attached version of a workflow's declared policy. */
export interface PolicyVersionRow {
  version: number;
  createdBy: string;
  createdAt: number;
}

/** A workflow named by runs of the viewer's projects, with the policy versions attached to it. */
export interface WorkflowPolicyRow {
  workflow: string;
  runs: number;
  versions: PolicyVersionRow[];
}

const when = (ms: number) => new Date(ms).toISOString().replace("T", " ").slice(0, 16);

/**
 * The workflows of the runs in the projects the viewer administers: how many runs each
 * has there, the policy version that judges them now (the latest) and every version
 * attached, newest first.
 */
export function WorkflowPoliciesTable({ workflows }: { workflows: readonly WorkflowPolicyRow[] }) {
  return (
    <div className="admin-table-wrap">
      <table className="admin-table workflow-policies" aria-label="Workflow policies">
        <thead>
          <tr>
            <th>Workflow</th>
            <th className="num">Runs</th>
            <th>Policy judging its runs</th>
            <th>Versions (UTC)</th>
          </tr>
        </thead>
        <tbody>
          {workflows.map((w) => {
            const latest = w.versions.at(-1);
            return (
              <tr key={w.workflow}>
                <td className="mono workflow-name">{w.workflow}</td>
                <td className="num">{w.runs.toLocaleString("en-US")}</td>
                <td>
                  {latest ? (
                    <>
                      v{latest.version} <span className="sub">attached {when(latest.createdAt)} UTC by </span>
                      <span className="sub mono">{latest.createdBy}</span>
                    </>
                  ) : (
                    <span className="sub">none</span>
                  )}
                </td>
                <td>
                  {w.versions.length === 0 ? (
                    <span className="sub">none</span>
                  ) : (
                    <details className="policy-versions">
                      <summary>
                        {w.versions.length} {w.versions.length === 1 ? "version" : "versions"}
                      </summary>
                      <ol aria-label={`Policy versions of ${w.workflow}`}>
                        {[...w.versions].reverse().map((v) => (
                          <li key={v.version}>
                            v{v.version} · {when(v.createdAt)} · <span className="mono">{v.createdBy}</span>
                          </li>
                        ))}
                      </ol>
                    </details>
                  )}
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
