"use client";
import type { InspectAnswer, StoredEvent } from "@/lib/view/api-types";
import { instructionRows } from "@/lib/view/context";
import { messageCalls } from "@/lib/view/message-calls";
import { JsonTree } from "@/components/ui/json-tree";
import { SafeText } from "@/components/ui/safe-text";
import { asObj, asStr, dataOf, Fields, findType, Jump, Value, type Data } from "./bits";

/** The assembled context: messages with their sources, instructions against the policy, template. */
export function ContextPane({ answer, all, policy }: { answer: InspectAnswer; all: StoredEvent[]; policy: Data | null }) {
  const ctx = answer.event.event.type === "context" ? answer.event : findType(all, "context");
  const request = findType(all, "model.request");
  if (!ctx) {
    const inline = dataOf(request).messages;
    if (Array.isArray(inline)) {
      return (
        <div className="pane">
          <p>No context event: the request sent its messages inline.</p>
          <Messages messages={inline} />
        </div>
      );
    }
    return <div className="empty-pane">No context was recorded for this model call{request ? ` (#${request.seq})` : ""}.</div>;
  }
  const d = dataOf(ctx);
  const template = asObj(d.template);
  const rows = instructionRows(d.instructions, policy?.requiredInstructions);
  const missing = rows.filter((r) => r.required && !r.included);
  return (
    <div className="pane">
      <Fields
        rows={[
          ["context event", <Jump key="c" seq={ctx.seq} />],
          [
            "template",
            template ? (
              <span key="t" className="mono">
                <Value v={template.id} />@<Value v={template.version} />
              </span>
            ) : (
              "—"
            ),
          ],
          ["tokens", <Value key="k" v={d.tokens} />],
        ]}
      />
      <h3>Instructions</h3>
      {rows.length === 0 ? (
        <p style={{ color: "var(--muted)" }}>No instructions, and the policy requires none.</p>
      ) : (
        <table aria-label="Instructions">
          <thead>
            <tr>
              <th>Instruction</th>
              <th>Required by policy</th>
              <th>Included</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((r) => (
              <tr key={r.id}>
                <td className="mono">
                  <SafeText value={r.id} />
                </td>
                <td>{r.required ? "required" : "—"}</td>
                <td className={r.included ? "ok" : "bad"}>{r.included ? "✓ included" : "✗ missing"}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {missing.length > 0 ? (
        <p className="bad">
          Missing required instruction{missing.length > 1 ? "s" : ""}: {missing.map((m) => m.id).join(", ")}
        </p>
      ) : null}
      <h3>Messages</h3>
      <Messages messages={d.messages} />
    </div>
  );
}

export function Messages({ messages }: { messages: unknown }) {
  if (!Array.isArray(messages)) return <JsonTree value={messages} copy={false} />;
  const calls = messageCalls(messages);
  return (
    <>
      {messages.map((m, i) => {
        const o = asObj(m) ?? {};
        const content = o.content;
        const said = !(content === undefined || content === null || content === "");
        return (
          <div key={i} className="message">
            <div className="role">
              <span>{asStr(o.role) ?? "?"}</span>
              {o.source !== undefined ? (
                <span className="src">
                  source: <Value v={o.source} />
                </span>
              ) : null}
            </div>
            {!said && calls[i].length > 0 ? null : typeof content === "string" ? (
              <SafeText value={content} limit={1200} />
            ) : (
              <JsonTree value={content} copy={false} openDepth={1} />
            )}
            {calls[i].length > 0 ? (
              <ul className="message-calls" aria-label="Tool calls">
                {calls[i].map((c, k) => (
                  <li key={k}>
                    called <SafeText value={c.name} className="mono" />
                    {c.id !== null ? (
                      <span className="src">
                        {" "}
                        (<SafeText value={c.id} className="mono" />)
                      </span>
                    ) : null}
                    {c.args !== undefined ? <JsonTree value={c.args} copy={false} openDepth={1} /> : null}
                  </li>
                ))}
              </ul>
            ) : null}
          </div>
        );
      })}
    </>
  );
}
