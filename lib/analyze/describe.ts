/**
 * Text for findings and divergences. Messages are shown, logged and exported, so any
 * value quoted from an event goes through `quote`, which never lets a secret through.
 */
import type { Invariant, RuleId, Severity } from "../journal/types";
import type { PolicyVerdict } from "../semantics";
import { stringHasSecret, type SecretKind } from "../redact/patterns";

export const RULE_SEVERITY: Readonly<Record<RuleId, Severity>> = {
  "journal.gap": "warning",
  "journal.chain": "error",
  "context.missing": "warning",
  "context.instruction-omitted": "warning",
  "retrieval.stale": "warning",
  "tool.partial": "warning",
  "approval.missing": "error",
  "approval.stale-state": "error",
  "approval.undecided": "warning",
  "approval.denied": "error",
  "approval.reused": "warning",
  "loop.past-stop": "error",
  "loop.max-steps": "warning",
  "effect.no-idempotency": "warning",
  "effect.retry-after-unknown": "error",
  "effect.duplicate": "error",
  "state.hash-mismatch": "error",
  "secret.exposed": "error",
  "tool.args-invalid": "error",
  "policy.requires-before": "error",
  "policy.state-precondition": "error",
  "policy.once-per": "error",
  "policy.confirmed-by-input": "error",
  "policy.arg-from-input": "error",
};

const SECRET_NAMES: Readonly<Record<SecretKind, string>> = {
  "aws-access-key": "an AWS access key",
  "openai-key": "an OpenAI-style API key",
  "stripe-key": "a Stripe key",
  "github-token": "a GitHub token",
  "slack-token": "a Slack token",
  "google-api-key": "a Google API key",
  jwt: "a JWT",
  "private-key": "a private key",
  "bearer-token": "a bearer token",
  "url-password": "a password in a URL",
  "secret-field": "a secret-named field",
  // found by redaction beyond the format's list, never by analysis
  "github-fine-grained-token": "a GitHub fine-grained token",
  "aws-temporary-access-key": "an AWS temporary access key id",
  "aws-secret-key": "an AWS secret access key",
};

export function secretName(kind: SecretKind): string {
  return SECRET_NAMES[kind];
}

/** A value from an event, quoted for a message: shortened, and withheld if it looks secret. */
export function quote(value: unknown, max = 60): string {
  const text =
    typeof value === "string"
      ? value
      : (JSON.stringify(value, (_k, v: unknown) => (typeof v === "bigint" ? v.toString() : v)) ?? String(value));
  if (stringHasSecret(text)) return "(withheld: looks like a secret)";
  const short = text.length > max ? text.slice(0, max - 1) + "…" : text;
  return typeof value === "string" ? `"${short}"` : short;
}

/** A field path for a message; a path whose keys themselves look secret is withheld. */
export function safePath(path: string): string {
  return stringHasSecret(path) ? "a field whose name looks like a secret" : path || "the event";
}

/** What a broken invariant means at its call, without quoting a value of the run. */
export function invariantText(inv: Invariant, v: PolicyVerdict): string {
  switch (inv.kind) {
    case "requires-before":
      return `no earlier call to ${(typeof inv.after === "string" ? [inv.after] : inv.after).map((t) => quote(t)).join(" or ")} succeeded${
        inv.sameArg
          ? ` with an equal ${"afterArg" in inv.sameArg ? quote(inv.sameArg.afterArg) : `result at ${quote(inv.sameArg.afterResult)}`}`
          : ""
      }`;
    case "state-precondition":
      return `the object ${quote(inv.arg)} names was last read with ${quote(inv.source.path)} outside the ${inv.in.length} allowed value${inv.in.length === 1 ? "" : "s"}`;
    case "once-per":
      return `an earlier call with an equal ${quote(inv.arg)} did not fail`;
    case "confirmed-by-input":
      return v.evidence === null ? "no user input came before it" : "the last user input before it holds none of the confirmation words";
    case "arg-from-input":
      return `a value at ${quote(inv.arg)} appears in no earlier ${inv.from.map((f) => (f === "user" ? "user input" : `result of ${quote(f.tool)}`)).join(" or ")}`;
  }
}
