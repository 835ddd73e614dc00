/** Words for a fork's override, for the banner and the fork panel. */
import type { ForkOverride } from "@/lib/replay";

export function describeOverride(o: ForkOverride): string {
  const parts: string[] = [];
  if (o.approval) parts.push(`approval ${o.approval}`);
  if (o.policy) {
    const p: string[] = [];
    if (o.policy.requireApproval) p.push(`requireApproval = [${o.policy.requireApproval.join(", ")}]`);
    if (o.policy.maxSteps !== undefined) p.push(`maxSteps = ${o.policy.maxSteps}`);
    if (o.policy.retrievalMaxAgeSeconds !== undefined) p.push(`retrievalMaxAgeSeconds = ${o.policy.retrievalMaxAgeSeconds}`);
    if (o.policy.requiredInstructions) p.push(`requiredInstructions = [${o.policy.requiredInstructions.join(", ")}]`);
    parts.push(`policy ${p.join(", ") || "(unchanged)"}`);
  }
  if (o.toolResult) parts.push(`tool result replaced${typeof o.toolResult.status === "string" ? ` (status ${o.toolResult.status})` : ""}`);
  if (o.modelOutput) parts.push("model output replaced");
  if (o.state !== undefined) parts.push("state replaced");
  if (o.statePatch !== undefined) parts.push(`state patched (${Array.isArray(o.statePatch) ? o.statePatch.length : "?"} operations)`);
  return parts.join("; ");
}
