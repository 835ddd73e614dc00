/**
 * Text for findings and divergences. Messages are shown, logged and exported, so any
 * value quoted from an event goes through `quote`, which never lets a secret through.
 */
import type { RuleId, Severity } from "../journal/types";
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
