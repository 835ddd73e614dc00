/**
 * Events reduced to what the alignment reads, so two long runs can be aligned without
 * holding their payloads: the compare worker projects each page of events as it arrives
 * and drops the page.
 *
 * A projected event keeps its seq, type and step, and of its data only the small fields
 * that `segmentsOf`, `eventKey` and meaningful.ts read (ids of calls and approvals, tool,
 * model, step name, statuses, decisions, outcomes, and a call's arguments and the tools a
 * model asked for, which the meaningful divergence compares after `Origins.normalize`).
 * What is compared only for equality is kept as a digest: the content key (type and
 * comparable content, `contentKey`) and each top-level field of the comparable content
 * (`changedFields`). The run's `Origins` are built as the events stream by. So
 * `alignProjected` makes the same alignment as `alignRuns` on the whole events
 * (tests/compare/projection.test.ts checks it on generated and mutated runs).
 */
import { canonicalJson } from "../canonical";
import { obj } from "../journal/values";
import { alignWith, comparable, contentKey, type Alignment, type AlignRunsOptions, type CompareEvent } from "./align";
import { Origins } from "./meaningful";

/** What the alignment reads of one event (see the file comment). */
export interface ProjectedEvent extends CompareEvent {
  /** Digest of `contentKey`: equal ⇔ equal type and comparable content. */
  content: string;
  /** Top-level fields of the comparable content with a digest of each value, as `key\0digest\0…`. */
  fields: string;
}

export interface ProjectedRun {
  events: ProjectedEvent[];
  origins: Origins;
}

/** The data fields each type keeps (everything the alignment and meaningful.ts read of it). */
const KEPT: Record<string, readonly string[]> = {
  "tool.call": ["call", "tool", "effect", "args"],
  "tool.result": ["call", "status", "partial"],
  reconcile: ["call", "outcome"],
  "model.request": ["call", "model"],
  "model.response": ["call", "finishReason"],
  "approval.request": ["call", "approval"],
  "approval.decision": ["approval", "decision"],
  "step.start": ["name"],
  "step.end": ["status"],
  "run.end": ["status"],
  decision: ["action"],
};

const NO_DATA: { [key: string]: unknown } = Object.freeze({}) as { [key: string]: unknown };

/** A value's digest never equals this: a value with no canonical form differs even from itself, as in `changedFields`. */
const NOT_COMPARABLE = "!";

/**
 * 106 bits (two 53-bit cyrb53 hashes) of a string, in base 36. Not cryptographic: it only
 * stands for a string of the same run pair's events, never for anything signed.
 */
export function digest(text: string): string {
  return half(text, 0x9e3779b9).toString(36) + ":" + half(text, 0x85ebca6b).toString(36);
}

function half(text: string, seed: number): number {
  let h1 = 0xdeadbeef ^ seed;
  let h2 = 0x41c6ce57 ^ seed;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ ch, 2654435761);
    h2 = Math.imul(h2 ^ ch, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507);
  h1 ^= Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507);
  h2 ^= Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return 4294967296 * (2097151 & h2) + (h1 >>> 0);
}

/** The same strings, once: most types, steps, tools and statuses repeat through a run. */
class Interner {
  private readonly seen = new Map<string, string>();
  of(s: string): string;
  of(s: string | undefined): string | undefined;
  of(s: string | undefined): string | undefined {
    if (s === undefined || s.length > 64) return s;
    const had = this.seen.get(s);
    if (had !== undefined) return had;
    this.seen.set(s, s);
    return s;
  }
  value(v: unknown): unknown {
    return typeof v === "string" ? this.of(v) : v;
  }
}

function lightData(e: CompareEvent, strings: Interner): { [key: string]: unknown } {
  const d = e.data;
  const keep = KEPT[e.type];
  let out: { [key: string]: unknown } | null = null;
  if (keep)
    for (const k of keep)
      if (d[k] !== undefined) {
        out ??= {};
        out[k] = strings.value(d[k]);
      }
  switch (e.type) {
    case "model.response": {
      out ??= {};
      if (d.error !== undefined) out.error = true;
      const output = obj(d.output);
      if (output)
        out.output = Array.isArray(output.toolCalls)
          ? {
              toolCalls: output.toolCalls.map((c) => {
                const call = obj(c);
                if (!call) return c;
                const kept: { [key: string]: unknown } = {};
                if (call.name !== undefined) kept.name = strings.value(call.name);
                if (call.args !== undefined) kept.args = call.args;
                return kept;
              }),
            }
          : {};
      break;
    }
    case "decision": {
      const stop = obj(d.stop);
      if (stop && stop.met !== undefined) (out ??= {}).stop = { met: stop.met };
      break;
    }
    case "approval.request": {
      const policy = obj(d.policy);
      if (policy && policy.id !== undefined) (out ??= {}).policy = { id: policy.id };
      break;
    }
  }
  return out ?? NO_DATA;
}

function fieldDigests(e: CompareEvent): string {
  const c = obj(comparable(e));
  if (!c) return "";
  let out = "";
  for (const k of Object.keys(c)) {
    let d: string;
    try {
      d = digest(canonicalJson(c[k] ?? null));
    } catch {
      d = NOT_COMPARABLE;
    }
    out += `${out === "" ? "" : "\u0000"}${k}\u0000${d}`;
  }
  return out;
}

function fieldMap(fields: string): Map<string, string> {
  const m = new Map<string, string>();
  if (fields === "") return m;
  const parts = fields.split("\u0000");
  for (let i = 0; i + 1 < parts.length; i += 2) m.set(parts[i], parts[i + 1]);
  return m;
}

const NULL_DIGEST = digest("null");

/** `changedFields` of two projected events, from their field digests. */
export function changedFieldsOf(a: ProjectedEvent, b: ProjectedEvent): string[] {
  if (a.type !== b.type) return ["type"];
  const fa = fieldMap(a.fields);
  const fb = fieldMap(b.fields);
  const keys = [...new Set([...fa.keys(), ...fb.keys()])];
  return keys.filter((k) => {
    const da = fa.get(k) ?? NULL_DIGEST;
    const db = fb.get(k) ?? NULL_DIGEST;
    return da === NOT_COMPARABLE || db === NOT_COMPARABLE || da !== db;
  });
}

/** Projects one run's events in seq order, one at a time (`push`), then `done`. */
export class RunProjector {
  private readonly events: ProjectedEvent[] = [];
  private readonly origins = new Origins();
  private readonly strings = new Interner();

  push(e: CompareEvent): void {
    const index = this.events.length;
    this.origins.add(e, index);
    const p: ProjectedEvent = {
      seq: e.seq,
      type: this.strings.of(e.type),
      data: lightData(e, this.strings),
      content: digest(contentKey(e)),
      fields: fieldDigests(e),
    };
    if (e.step !== undefined) p.step = this.strings.of(e.step);
    this.events.push(p);
  }

  get length(): number {
    return this.events.length;
  }

  done(): ProjectedRun {
    return { events: this.events, origins: this.origins };
  }
}

/** A whole run projected (the worker pushes page by page instead). */
export function projectRun(events: readonly CompareEvent[]): ProjectedRun {
  const p = new RunProjector();
  for (const e of events) p.push(e);
  return p.done();
}

/** `alignRuns` of two projected runs: the same alignment as on their whole events. */
export function alignProjected(a: ProjectedRun, b: ProjectedRun, options: AlignRunsOptions = {}): Alignment {
  return alignWith(
    a.events,
    b.events,
    {
      contentA: a.events.map((e) => e.content),
      contentB: b.events.map((e) => e.content),
      changedFields: (ia, ib) => changedFieldsOf(a.events[ia], b.events[ib]),
      origins: { a: a.origins, b: b.origins },
    },
    options,
  );
}
