import { ruleText } from "@/lib/analyze";
import type { InspectAnswer } from "@/lib/view/api-types";
import { Jump, Value } from "./bits";

type PolicyVerdict = NonNullable<InspectAnswer["verdicts"]["policy"]>;

/**
 * The declared policy's verdict on a tool call (lib/semantics, sent with the inspect answer):
 * its args against the tool's contract and each invariant about the tool, held or broken
 * with its evidence, under the rule each finding is reported as. The pane says what the
 * findings say and judges nothing itself.
 */
export function PolicyVerdictBlock({ verdict }: { verdict: PolicyVerdict }) {
  const broken = new Map(verdict.broken.map((b) => [b.id, b]));
  const rule = (r: string) => <span className="mono">{r}</span>;
  const bad = verdict.broken.length > 0 || (verdict.args !== null && verdict.args.status !== "ok");
  return (
    <section aria-label="Declared policy" data-testid="policy-verdict" data-broken={bad ? "true" : "false"}>
      <h3>Declared policy</h3>
      <ul className="policy-verdict">
        {verdict.args === null ? null : verdict.args.status === "ok" ? (
          <li className="ok">
            ✓ The arguments conform to the contract&apos;s schema for <Value v={verdict.tool} />.
          </li>
        ) : verdict.args.status === "invalid" ? (
          <li className="bad">
            ✗ {rule("tool.args-invalid")}: keyword <span className="mono">{verdict.args.keyword}</span> at{" "}
            <span className="mono">{verdict.args.path === "" ? "/" : verdict.args.path}</span> ({verdict.args.message}).
          </li>
        ) : (
          <li className="warnc">
            The contract&apos;s args schema is refused, so this call cannot be checked: <Value v={verdict.args.message} />
          </li>
        )}
        {verdict.checked.map((id) => {
          const b = broken.get(id);
          if (!b)
            return (
              <li key={id} className="ok">
                ✓ Invariant <Value v={id} /> holds.
              </li>
            );
          return (
            <li key={id} className="bad">
              ✗ {rule(`policy.${b.kind}`)}: invariant <Value v={id} /> is broken ({ruleText(`policy.${b.kind}`).title.toLowerCase()})
              {b.path !== null ? (
                <>
                  {" "}
                  at <span className="mono">{b.path}</span>
                </>
              ) : null}
              {b.evidence !== null ? (
                <>
                  ; evidence <Jump seq={b.evidence}>#{b.evidence}</Jump>
                </>
              ) : (
                "; the evidence is an absence"
              )}
              .
            </li>
          );
        })}
      </ul>
    </section>
  );
}
