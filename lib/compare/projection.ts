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
interface ProjectedEvent extends CompareEvent {
  /** Digest of `contentKey` (8 UTF-16 units): equal ⇔ equal type and comparable content. */
  content: string;
}

export interface ProjectedRun {
  events: ProjectedEvent[];
  origins: Origins;
  /** The top-level fields of each event's comparable content, with a digest of each value. */
  fields: FieldDigests;
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

/**
 * 106 bits (two 53-bit cyrb53 hashes) of a string, as 8 UTF-16 code units (one flat
 * string, the smallest V8 keeps). Not cryptographic: it only stands for a string of the
 * same run pair's events, never for anything signed.
 */
export function digest(text: string): string {
  const x = half(text, 0x9e3779b9);
  const y = half(text, 0x85ebca6b);
  const lo = (v: number) => v % 4294967296;
  const hi = (v: number) => Math.floor(v / 4294967296);
  return String.fromCharCode(
    lo(x) & 0xffff,
    lo(x) >>> 16,
    hi(x) & 0xffff,
    hi(x) >>> 16,
    lo(y) & 0xffff,
    lo(y) >>> 16,
    hi(y) & 0xffff,
    hi(y) >>> 16,
  );
}

/** 53 bits of a string (a field's value: it only decides which fields a changed row names). */
function fieldHash(text: string): number {
  return half(text, 0x27d4eb2f);
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
        // ids of calls and approvals are unique: interning them would only add a map entry each
        out[k] = k === "call" || k === "approval" ? d[k] : strings.value(d[k]);
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

/**
 * Per event, its comparable content's top-level fields (in order) and a hash of each
 * value, in two growing columns: an object or string per event would cost several times
 * the event's other fields.
 */
class FieldDigests {
  private readonly keys: string[] = [];
  private readonly keyIds = new Map<string, number>();
  /** Per event i, its pairs are [start[i], start[i + 1]) of `pairs` (key id, hash). */
  private start = new Uint32Array(1024);
  private pairs = new Float64Array(4096);
  private events = 0;
  private used = 0;

  push(e: CompareEvent): void {
    const c = obj(comparable(e));
    if (c)
      for (const k of Object.keys(c)) {
        let h: number;
        try {
          h = fieldHash(canonicalJson(c[k] ?? null));
        } catch {
          h = NOT_COMPARABLE;
        }
        let id = this.keyIds.get(k);
        if (id === undefined) {
          id = this.keys.length;
          this.keys.push(k);
          this.keyIds.set(k, id);
        }
        if (this.used + 2 > this.pairs.length) this.pairs = grown(this.pairs, this.used + 2);
        this.pairs[this.used++] = id;
        this.pairs[this.used++] = h;
      }
    if (this.events + 2 > this.start.length) this.start = grown(this.start, this.events + 2);
    this.start[++this.events] = this.used;
  }

  /** Event i's fields and their value hashes, in order. */
  of(i: number): Map<string, number> {
    const m = new Map<string, number>();
    for (let p = this.start[i]; p < this.start[i + 1]; p += 2) m.set(this.keys[this.pairs[p]], this.pairs[p + 1]);
    return m;
  }
}

function grown<A extends Uint32Array | Float64Array>(a: A, atLeast: number): A {
  const next = new (a.constructor as new (n: number) => A)(Math.max(atLeast, a.length * 2));
  next.set(a);
  return next;
}

/** A value with no canonical form: differs even from itself, as in `changedFields` (NaN equals nothing). */
const NOT_COMPARABLE = Number.NaN;
const NULL_HASH = fieldHash("null");

/** `changedFields` of event ia of run a and event ib of run b, from their field hashes. */
export function changedFieldsOf(a: ProjectedRun, ia: number, b: ProjectedRun, ib: number): string[] {
  if (a.events[ia].type !== b.events[ib].type) return ["type"];
  const fa = a.fields.of(ia);
  const fb = b.fields.of(ib);
  const keys = [...new Set([...fa.keys(), ...fb.keys()])];
  return keys.filter((k) => (fa.get(k) ?? NULL_HASH) !== (fb.get(k) ?? NULL_HASH));
}

/** Projects one run's events in seq order, one at a time (`push`), then `done`. */
export class RunProjector {
  private readonly events: ProjectedEvent[] = [];
  private readonly origins = new Origins();
  private readonly strings = new Interner();
  private readonly fields = new FieldDigests();

  push(e: CompareEvent): void {
    const index = this.events.length;
    this.origins.add(e, index);
    const p: ProjectedEvent = {
      seq: e.seq,
      type: this.strings.of(e.type),
      data: lightData(e, this.strings),
      content: digest(contentKey(e)),
    };
    this.fields.push(e);
    if (e.step !== undefined) p.step = this.strings.of(e.step);
    this.events.push(p);
  }

  get length(): number {
    return this.events.length;
  }

  done(): ProjectedRun {
    return { events: this.events, origins: this.origins, fields: this.fields };
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
      changedFields: (ia, ib) => changedFieldsOf(a, ia, b, ib),
      origins: { a: a.origins, b: b.origins },
    },
    options,
  );
}
