"use client";
import type { InspectAnswer, StoredEvent } from "@/lib/view/api-types";
import { formatCount, formatDuration } from "@/lib/view/format";
import { JsonTree } from "@/components/ui/json-tree";
import { SafeText } from "@/components/ui/safe-text";
import { asObj, asStr, dataOf, ErrorBlock, Fields, findType, Jump, Value } from "./bits";
import { Messages } from "./context-pane";

/** A model call: request (model, params, tools) and response (text, tool calls, usage, latency). */
export function ModelPane({ answer, all }: { answer: InspectAnswer; all: StoredEvent[] }) {
  const self = answer.event;
  const call = asStr(dataOf(self).call);
  const request = self.event.type === "model.request" ? self : findType(all, "model.request", (d) => d.call === call);
  const response = self.event.type === "model.response" ? self : findType(all, "model.response", (d) => d.call === call);
  const rq = dataOf(request);
  const rs = dataOf(response);
  const output = asObj(rs.output) ?? {};
  const usage = asObj(rs.usage);
  const toolCalls = Array.isArray(output.toolCalls) ? output.toolCalls : [];
  const latency =
    typeof rs.latencyMs === "number"
      ? rs.latencyMs
      : request && response
        ? Date.parse(response.event.ts) - Date.parse(request.event.ts)
        : null;
  const inT = typeof usage?.inputTokens === "number" ? usage.inputTokens : null;
  const outT = typeof usage?.outputTokens === "number" ? usage.outputTokens : null;
  return (
    <div className="pane">
      <h3>Request {request ? <Jump seq={request.seq} /> : null}</h3>
      {request ? (
        <>
          <Fields
            rows={[
              ["call", <Value key="c" v={rq.call} />],
              ["model", <Value key="m" v={rq.model} />],
              [
                "context",
                typeof rq.context === "number" ? (
                  <Jump key="x" seq={rq.context}>
                    #{rq.context} (context event)
                  </Jump>
                ) : rq.messages ? (
                  "messages inline"
                ) : (
                  <span key="n" className="bad">
                    none recorded
                  </span>
                ),
              ],
              ["tools offered", Array.isArray(rq.tools) ? <Value key="t" v={rq.tools.join(", ")} /> : "—"],
            ]}
          />
          {rq.params !== undefined ? (
            <>
              <h3>Parameters</h3>
              <JsonTree value={rq.params} copy={false} />
            </>
          ) : null}
          {Array.isArray(rq.messages) ? (
            <>
              <h3>Messages</h3>
              <Messages messages={rq.messages} />
            </>
          ) : null}
        </>
      ) : (
        <p className="warnc">The request was not found in this run.</p>
      )}
      <h3>Response {response ? <Jump seq={response.seq} /> : null}</h3>
      {response ? (
        <>
          <Fields
            rows={[
              ["finish reason", <Value key="f" v={rs.finishReason} />],
              ["latency", latency !== null && Number.isFinite(latency) ? formatDuration(latency) : "—"],
              ["input tokens", formatCount(inT)],
              ["output tokens", formatCount(outT)],
              ["total tokens", inT !== null || outT !== null ? formatCount((inT ?? 0) + (outT ?? 0)) : "—"],
            ]}
          />
          {rs.error !== undefined ? <ErrorBlock error={rs.error} /> : null}
          {typeof output.text === "string" ? (
            <div className="message">
              <div className="role">output text</div>
              <SafeText value={output.text} limit={2000} />
            </div>
          ) : null}
          {toolCalls.length > 0 ? (
            <>
              <h3>Tool calls requested</h3>
              {toolCalls.map((tc, i) => {
                const o = asObj(tc) ?? {};
                return (
                  <div key={i} className="message">
                    <div className="role">
                      <span>
                        <Value v={o.name} />
                      </span>
                      <span className="src">
                        id <Value v={o.id} />
                      </span>
                    </div>
                    <JsonTree value={o.args} copy={false} />
                  </div>
                );
              })}
            </>
          ) : null}
        </>
      ) : (
        <p className="warnc">No response recorded (yet) for this call.</p>
      )}
    </div>
  );
}
