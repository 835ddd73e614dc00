/**
 * Redaction profiles of an audit bundle, applied on top of what storage already holds
 * (events are redacted of secrets at ingest, always):
 *
 * - `secrets`: nothing more; the stored (secret-redacted) events as they are.
 * - `reviewer`: also personal data (pii.ts: e-mail, phone, Luhn-valid card, IBAN with valid
 *   check digits, IPv4, IPv6) in every string of every event, finding, note and log entry,
 *   and the values at the JSON paths the exporter names (`data.args.customer`, `*` for any
 *   key or index), each replaced by `[pii:<kind>:<12 hex>]`.
 * - `public`: also every payload: message and input content, model output text, tool
 *   arguments and results, errors, reasons, retrieval queries and documents, state, notes'
 *   text, and any string under a key that is not a known structural one, each replaced by
 *   `[public:<length>:<12 hex>]` (the length of its text, a keyed hash of it).
 *
 * The placeholders' hex is an HMAC-SHA256 under a key made for this one bundle and then
 * forgotten: within a bundle one value always gives one placeholder (a reviewer can follow
 * an entity), and nobody, the exporter included, can confirm a guessed value from it.
 */
import { createHmac, randomBytes } from "node:crypto";
import { canonicalJson } from "../canonical";
import { setOwn } from "../journal/own-keys";
import { replacePii, type PiiKind } from "./pii";

export const PROFILES = ["secrets", "reviewer", "public"] as const;
export type Profile = (typeof PROFILES)[number];

export const PROFILE_DESCRIPTIONS: Record<Profile, string> = {
  secrets: "secrets redacted (as stored at ingest)",
  reviewer: "secrets and personal data redacted (e-mail, phone, card, IBAN, IP addresses, configured fields)",
  public: "secrets, personal data and every payload redacted (content replaced by its length and a keyed hash)",
};

export const isProfile = (s: string): s is Profile => (PROFILES as readonly string[]).includes(s);

/** Keys whose whole value is payload content under `public`. */
const CONTENT_KEYS = new Set([
  "input",
  "output",
  "content",
  "text",
  "args",
  "result",
  "error",
  "reason",
  "message",
  "query",
  "set",
  "state",
  "evidence",
  "condition",
  "value",
  "messages",
  "params",
  "by",
  "target",
]);

/** Keys whose string values are structure (ids, names, versions, enums), kept under `public`. */
const STRUCTURAL_KEYS = new Set([
  "run",
  "ts",
  "type",
  "step",
  "call",
  "tool",
  "model",
  "version",
  "name",
  "kind",
  "id",
  "effect",
  "status",
  "idempotencyKey",
  "externalId",
  "approval",
  "decision",
  "stateHash",
  "hash",
  "action",
  "finishReason",
  "role",
  "source",
  "environment",
  "outcome",
  "code",
  "checkpoint",
  "op",
  "path",
  "indexedAt",
  "uri",
]);

/** Paths (from the event, e.g. `data.args.card`) whose value is a placeholder under `reviewer`. */
type FieldPath = readonly string[];

export function parseFieldPath(text: string): FieldPath {
  const t = text.trim().replace(/^\$\.?/, "");
  const parts = t.split(".").filter((p) => p !== "");
  if (parts.length === 0) throw new Error(`"${text}" is not a JSON path (e.g. data.args.customer.email)`);
  return parts;
}

export class Pseudonymizer {
  private readonly key: Buffer;
  constructor(key: Buffer = randomBytes(32)) {
    this.key = key;
  }
  hex(text: string): string {
    return createHmac("sha256", this.key).update(text).digest("hex").slice(0, 12);
  }
  pii(kind: PiiKind | "field", value: string): string {
    return `[pii:${kind}:${this.hex(`${kind}\u0000${value}`)}]`;
  }
  public(value: unknown): string {
    const text = typeof value === "string" ? value : canonicalJson(value);
    return `[public:${text.length}:${this.hex(`public\u0000${text}`)}]`;
  }
}

type Json = unknown;

/** Applies a profile to values: events, findings, notes, log entries. */
export class ProfileRedactor {
  readonly profile: Profile;
  private readonly p: Pseudonymizer;
  private readonly fields: FieldPath[];

  constructor(profile: Profile, opts: { fields?: readonly string[]; pseudonymizer?: Pseudonymizer } = {}) {
    this.profile = profile;
    this.p = opts.pseudonymizer ?? new Pseudonymizer();
    this.fields = (opts.fields ?? []).map(parseFieldPath);
  }

  /** Personal data out of one string (reviewer and public); unchanged under `secrets`. */
  text(s: string): string {
    if (this.profile === "secrets") return s;
    return replacePii(s, (kind, v) => this.p.pii(kind, v));
  }

  /** Payload text (a note, a message) under `public`: its placeholder; else `text`. */
  content(s: string): string {
    return this.profile === "public" ? this.p.public(s) : this.text(s);
  }

  /** Every string in a value, `text` applied (keys too: a key can be an e-mail address). */
  deep(v: Json): Json {
    if (this.profile === "secrets") return v;
    return this.walk(v, [], false);
  }

  /** One stored event (envelope and data) as the profile exports it. */
  event(e: Record<string, unknown>): Record<string, unknown> {
    if (this.profile === "secrets") return e;
    return this.walk(e, [], true) as Record<string, unknown>;
  }

  private walk(v: Json, path: string[], isEvent: boolean): Json {
    if (this.fields.length > 0 && path.length > 0 && this.fields.some((f) => pathMatches(f, path)))
      return this.p.pii("field", typeof v === "string" ? v : canonicalJson(v));
    const key = path.length > 0 ? path[path.length - 1] : "";
    if (isEvent && this.profile === "public" && path.length >= 2 && path[0] === "data") {
      // model.response's output holds structure (tool call names) around its content
      const structuredOutput = key === "output" && path.length === 2 && v !== null && typeof v === "object" && !Array.isArray(v);
      if (CONTENT_KEYS.has(key) && !structuredOutput && !(key === "messages" && Array.isArray(v))) return this.p.public(v);
      if (typeof v === "string" && !keptUnderPublic(path)) return this.p.public(v);
    }
    if (typeof v === "string") return this.text(v);
    if (Array.isArray(v)) return v.map((x, i) => this.walk(x, [...path, String(i)], isEvent));
    if (v !== null && typeof v === "object") {
      const out: Record<string, unknown> = {};
      for (const k of Object.keys(v)) setOwn(out, this.text(k), this.walk((v as Record<string, unknown>)[k], [...path, k], isEvent));
      return out;
    }
    return v;
  }
}

/** Lists of names (tools offered, instruction ids, tags) whose items are structure. */
const NAME_LISTS = new Set(["tools", "instructions", "tags", "requireApproval", "requiredInstructions"]);

function keptUnderPublic(path: readonly string[]): boolean {
  const key = path[path.length - 1];
  if (/^\d+$/.test(key)) return path.length >= 2 && NAME_LISTS.has(path[path.length - 2]);
  return STRUCTURAL_KEYS.has(key);
}

function pathMatches(pattern: FieldPath, path: readonly string[]): boolean {
  if (pattern.length !== path.length) return false;
  for (let i = 0; i < pattern.length; i++) if (pattern[i] !== "*" && pattern[i] !== path[i]) return false;
  return true;
}
