/**
 * Model-request matching: each request a replayed agent sends, against the recorded request
 * it corresponds to, after normalisation (normalise.ts) and with the replay's places mapped
 * to the recording's (paths.ts). The correspondence is not arrival order alone: a side
 * request (a title) may come concurrently with the first turn, so a request takes the
 * earliest unanswered recorded request of its API that it equals, else the nearest one.
 *
 * A difference is reported at the seq of the first recorded event it concerns: a tool
 * result at its `tool.result`, the system prompt and messages at the `context`, the model,
 * tools and params at the `model.request`.
 */
import type { PartOfRequest, RequestPart } from "../gateway/apis/codec";
import { canonicallyEqual } from "../canonical";
import { normaliseRequestBody, type NormaliseOptions } from "./normalise";
import { mapPlacesDeep, type PlaceMap } from "./paths";
import { firstSeqOf, type RecordedExchange, type RecordedRequest } from "./gateway-recording";

/**
 * `tool-call`: a tool call (the recorder SDK's, or an MCP tools/call) that the recording
 * does not answer, or a recorded one never made: ToolCallSequence (tool-sequence.ts) says it.
 * `policy`: a tool call refused because it breaks the declared policy (policy-guard.ts).
 */
export type RequestDivergenceKind = RequestPart | "extra-request" | "missing-request" | "tool-call" | "policy";

export interface RequestDivergence {
  /** seq in the recorded journal of the first event that differs. */
  seq: number;
  kind: RequestDivergenceKind;
  /** JSON Pointer into the request body (`/model` for Gemini's model, which is in the path). */
  path: string;
  recorded: unknown;
  replayed: unknown;
}

export interface MatchResult<X extends RecordedRequest = RecordedExchange> {
  /** The recorded call this request stands for (null: none left of its API). */
  exchange: X | null;
  divergence: RequestDivergence | null;
}

export interface MatcherOptions extends NormaliseOptions {
  /** The replay's places → the recording's. */
  places?: PlaceMap;
  /** How many unanswered recorded requests ahead a request may correspond to. */
  window?: number;
}

/** What the field at `pointer` of a request body in `format` is. */
export type RequestClassifier = (format: string, pointer: readonly string[], body: unknown) => PartOfRequest;

/**
 * How a matcher reads the bodies of one kind of recording: where a difference lies, and
 * (optionally) what is added to a body before it is compared (Gemini's model, from the path).
 * The gateway's wire formats are read by wire-matcher.ts, the recorder SDK's requests by
 * recorder-recording.ts; this file imports neither, so the recorder package bundles no codec.
 */
export interface RequestReading {
  classify: RequestClassifier;
  prepare?: (format: string, path: string, body: unknown) => unknown;
  /** The seq a request never made is reported at (default: its first tool result, else its context). */
  firstSeq?: (x: RecordedRequest) => number;
}

/** The recorded requests a matcher walks: the gateway's recording, or the recorder SDK's. */
export interface RequestRecording<X extends RecordedRequest> {
  readonly exchanges: readonly X[];
  /** seq of run.end, or one past the last event: where an extra request is reported. */
  readonly endSeq: number;
}

const DIFF_LIMIT = 64;
const VALUE_LIMIT = 2000;

function segment(s: string): string {
  return s.replace(/~/g, "~0").replace(/\//g, "~1");
}

/** The JSON Pointer of a path given as segments ("" for the whole value). */
export function pointerOf(path: readonly string[]): string {
  return path.length === 0 ? "" : `/${path.map(segment).join("/")}`;
}

/** Pointers (as segments) where `a` and `b` differ, in document order, at most `limit`. */
export function differences(a: unknown, b: unknown, limit = DIFF_LIMIT, at: string[] = [], out: string[][] = []): string[][] {
  if (out.length >= limit) return out;
  if (Array.isArray(a) && Array.isArray(b)) {
    const n = Math.min(a.length, b.length);
    for (let i = 0; i < n && out.length < limit; i++) differences(a[i], b[i], limit, [...at, String(i)], out);
    if (a.length !== b.length && out.length < limit) out.push([...at, String(n)]);
    return out;
  }
  const ao = a !== null && typeof a === "object" && !Array.isArray(a);
  const bo = b !== null && typeof b === "object" && !Array.isArray(b);
  if (ao && bo) {
    const ar = a as Record<string, unknown>;
    const br = b as Record<string, unknown>;
    const keys = [...Object.keys(ar), ...Object.keys(br).filter((k) => !Object.prototype.hasOwnProperty.call(ar, k))];
    for (const k of keys) {
      if (out.length >= limit) break;
      const inA = Object.prototype.hasOwnProperty.call(ar, k);
      const inB = Object.prototype.hasOwnProperty.call(br, k);
      if (inA !== inB) out.push([...at, k]);
      else differences(ar[k], br[k], limit, [...at, k], out);
    }
    return out;
  }
  if (!canonicallyEqual(a, b)) out.push(at);
  return out;
}

/** The value at `path` (segments) of `v`, a long string cut. */
export function valueAt(v: unknown, path: readonly string[]): unknown {
  let cur = v;
  for (const p of path) {
    if (cur === null || typeof cur !== "object") return undefined;
    cur = (cur as Record<string, unknown>)[p];
  }
  if (typeof cur === "string" && cur.length > VALUE_LIMIT) return `${cur.slice(0, VALUE_LIMIT)}…`;
  return cur;
}

/** The matcher over any recording of requests; the gateway's is RequestMatcher (wire-matcher.ts). */
export class RecordedRequestMatcher<X extends RecordedRequest = RecordedExchange> {
  private readonly answered = new Set<number>();
  private replayedCount = 0;

  constructor(
    private readonly recording: RequestRecording<X>,
    private readonly opts: MatcherOptions,
    private readonly reading: RequestReading,
  ) {}

  /** The body as compared: prepared by the reading, then normalised. */
  private comparable(format: string, path: string, body: unknown): unknown {
    return normaliseRequestBody(this.reading.prepare ? this.reading.prepare(format, path, body) : body, this.opts);
  }

  get replayed(): number {
    return this.replayedCount;
  }

  /** Matches one replayed request and marks its recorded counterpart answered. */
  match(format: X["format"], path: string, body: unknown): MatchResult<X> {
    this.replayedCount++;
    const mapped = this.opts.places ? mapPlacesDeep(body, this.opts.places) : body;
    const mine = this.comparable(format, path, mapped);
    const open = this.recording.exchanges.filter((x) => x.format === format && !this.answered.has(x.index)).slice(0, this.opts.window ?? 8);
    if (open.length === 0)
      return {
        exchange: null,
        divergence: { seq: this.recording.endSeq, kind: "extra-request", path: "", recorded: null, replayed: valueAt(mine, []) },
      };
    let best: { x: X; diffs: string[][]; theirs: unknown } | null = null;
    for (const x of open) {
      const theirs = this.comparable(format, x.path, x.body);
      const diffs = differences(theirs, mine);
      if (best === null || diffs.length < best.diffs.length) best = { x, diffs, theirs };
      if (diffs.length === 0) break;
    }
    const { x, diffs, theirs } = best!;
    this.answered.add(x.index);
    if (diffs.length === 0) return { exchange: x, divergence: null };
    return { exchange: x, divergence: this.divergenceOf(x, diffs, theirs, mine) };
  }

  /** The first recorded call no replayed request stood for, as a divergence (null: none). */
  missing(): RequestDivergence | null {
    const x = this.recording.exchanges.find((e) => !this.answered.has(e.index));
    if (!x) return null;
    return {
      seq: this.reading.firstSeq ? this.reading.firstSeq(x) : firstSeqOf(x),
      kind: "missing-request",
      path: "",
      recorded: { method: x.method, path: x.path, model: x.model },
      replayed: null,
    };
  }

  private divergenceOf(x: X, diffs: string[][], theirs: unknown, mine: unknown): RequestDivergence {
    let first: { seq: number; kind: RequestPart; path: string[] } | null = null;
    for (const d of diffs) {
      // classify by the recorded request where the field exists there, else by the replayed one
      const where = valueAt(theirs, d) !== undefined ? theirs : mine;
      const part = this.reading.classify(x.format, d, where);
      let seq: number;
      if (part.part === "tool-result") {
        const result =
          x.toolResults.find((t) => part.toolCallId !== undefined && t.call === part.toolCallId) ??
          x.toolResults.find((t) => part.toolName !== undefined && t.tool === part.toolName);
        seq = result?.seq ?? x.contextSeq;
      } else seq = part.part === "system" || part.part === "messages" ? x.contextSeq : x.requestSeq;
      if (first === null || seq < first.seq) first = { seq, kind: part.part, path: d };
    }
    const f = first!;
    return {
      seq: f.seq,
      kind: f.kind,
      path: pointerOf(f.path),
      recorded: valueAt(theirs, f.path),
      replayed: valueAt(mine, f.path),
    };
  }
}
