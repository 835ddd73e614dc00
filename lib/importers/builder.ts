/**
 * Turns "proto events" (a time in nanoseconds, a type, data, and references by key instead
 * of seq) into a run's journal: `run.start` first, `run.end` last, the rest sorted by time,
 * seq 0..n-1 without gaps, `parent` resolved to a seq.
 *
 * Clocks of different services disagree, so a child span can claim to start before its
 * parent; `after` keeps such an event behind the event it depends on (its step's
 * `step.start`), so the journal never shows a child before its parent.
 */
import { setOwn } from "../journal/own-keys";
import type { EventType, JournalEvent, JsonObject, RunId, Seq } from "../journal/types";
import { SYNTHETIC_TIMES } from "../journal/summary";
import { obj } from "../journal/values";
import { nanosToIso, toJson, toJsonObject } from "./json-utils";

export interface ProtoEvent {
  /** Time in nanoseconds since the epoch (ignored when the builder is synthetic). */
  t: bigint;
  type: EventType;
  data: Record<string, unknown>;
  step?: string;
  /** A name other events use to refer to this one. */
  key?: string;
  /** Key of the event that caused this one; becomes `parent` (its seq). */
  parentKey?: string;
  /** Key of an event this one must follow in the journal. */
  after?: string;
  /** Extra envelope fields. */
  extra?: Record<string, unknown>;
}

interface Item extends ProtoEvent {
  order: number;
}

export interface BuildOptions {
  runId: string;
  /**
   * The source has no times: keep insertion order and give event n the time
   * 1970-01-01T00:00:00.000Z + n ms, and say so in run.start (`source.timestamps:
   * "synthetic"`, see timesRecordedIn) so that no view shows those times as real ones.
   */
  synthetic?: boolean;
  /**
   * Keep the order events were added in (their causal order, span-based importers) rather
   * than sorting by time: clocks of span starts are coarser than durations, so time alone
   * can put an effect before its cause.
   */
  causal?: boolean;
  start: { data: Record<string, unknown>; t?: bigint };
  /** null: no `run.end` (the run is still live: its root has not arrived). */
  end: { data: Record<string, unknown>; t?: bigint } | null;
}

export class JournalBuilder {
  private items: Item[] = [];

  add(e: ProtoEvent): void {
    this.items.push({ ...e, order: this.items.length });
  }

  get size(): number {
    return this.items.length;
  }

  /** The earliest and latest time of the events added so far. */
  span(): { min?: bigint; max?: bigint } {
    let min: bigint | undefined;
    let max: bigint | undefined;
    for (const it of this.items) {
      if (min === undefined || it.t < min) min = it.t;
      if (max === undefined || it.t > max) max = it.t;
    }
    return { min, max };
  }

  build(opts: BuildOptions): JournalEvent[] {
    const sorted =
      opts.synthetic || opts.causal
        ? [...this.items]
        : [...this.items].sort((a, b) => (a.t < b.t ? -1 : a.t > b.t ? 1 : a.order - b.order));
    const known = new Set(this.items.flatMap((i) => (i.key ? [i.key] : [])));
    const emitted = new Set<string>();
    const pending = new Map<string, Item[]>();
    const ordered: Item[] = [];
    const emit = (it: Item) => {
      ordered.push(it);
      if (!it.key) return;
      emitted.add(it.key);
      const waiting = pending.get(it.key);
      if (waiting) {
        pending.delete(it.key);
        for (const w of waiting) emit(w);
      }
    };
    for (const it of sorted) {
      if (it.after && known.has(it.after) && !emitted.has(it.after)) {
        const list = pending.get(it.after) ?? [];
        list.push(it);
        pending.set(it.after, list);
      } else {
        emit(it);
      }
    }
    // Only a reference cycle leaves events waiting; keep them rather than lose them.
    for (const list of pending.values()) for (const it of list) ordered.push(it);

    const { min, max } = this.span();
    const tStart = opts.start.t !== undefined && (min === undefined || opts.start.t <= min) ? opts.start.t : (min ?? 0n);
    const endT = opts.end?.t;
    const tEnd = endT !== undefined && (max === undefined || endT >= max) ? endT : (max ?? tStart);

    const run = opts.runId as RunId;
    const keyToSeq = new Map<string, number>();
    const out: JournalEvent[] = [];
    const make = (seq: number, t: bigint, type: EventType, data: Record<string, unknown>, it?: Item): JournalEvent => {
      const ev: JournalEvent = {
        run,
        seq: seq as Seq,
        ts: opts.synthetic ? nanosToIso(BigInt(seq) * 1_000_000n) : nanosToIso(t),
        type,
        data: toJsonObject(data),
      };
      if (it?.step !== undefined) ev.step = it.step;
      if (it?.parentKey !== undefined) {
        const p = keyToSeq.get(it.parentKey);
        if (p !== undefined && p < seq) ev.parent = p as Seq;
      }
      if (!opts.synthetic && t % 1_000_000n !== 0n) ev.tsNs = t.toString();
      if (it?.extra)
        for (const [k, v] of Object.entries(it.extra)) if (v !== undefined) setOwn(ev as Record<string, unknown>, k, toJson(v));
      return ev;
    };
    const startData = opts.synthetic
      ? { ...opts.start.data, source: { ...obj(opts.start.data.source), timestamps: SYNTHETIC_TIMES } }
      : opts.start.data;
    out.push(make(0, tStart, "run.start", startData));
    for (const it of ordered) {
      const seq = out.length;
      out.push(make(seq, it.t, it.type, it.data, it));
      if (it.key) keyToSeq.set(it.key, seq);
    }
    if (opts.end) out.push(make(out.length, tEnd, "run.end", opts.end.data));
    return out;
  }
}

export type { JsonObject };
