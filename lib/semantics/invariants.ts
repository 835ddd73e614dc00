/**
 * Invariants (docs/journal-format.md, "Invariants"): a fixed set of kinds whose parameters
 * are data (tool names, argument paths, values, words), each decided at a `tool.call` by
 * the events before it only, so a verdict never moves once made. The fold keeps what the
 * invariants of the run's policy need and nothing else (calls of watched tools, successful
 * reads, user inputs), as persistent maps shared between folds like the rest of lib/semantics.
 */
import { canonicalJson } from "../canonical";
import type { Invariant, InvariantKind, JournalEvent, JsonValue, RunPolicy } from "../journal/types";
import { obj, str } from "../journal/values";
import { readPath } from "./arg-path";
import { PMap } from "./pmap";

/** One invariant broken at a tool.call. */
export interface PolicyVerdict {
  kind: InvariantKind;
  /** The invariant's id in the policy. */
  id: string;
  /** seq of the event that shows it (the read, the earlier call, the last user input), null when the evidence is an absence. */
  evidence: number | null;
  /** The argument path concerned, when there is one. */
  path: string | null;
}

interface WatchedCall {
  readonly tool: string;
  readonly args: JsonValue;
  readonly seq: number;
  /** Latest result status, null before any. */
  readonly status: string | null;
}

interface Read {
  /** The field's value at the read, undefined when the result lacked it. */
  readonly value: JsonValue | undefined;
  readonly seq: number;
}

interface UserText {
  readonly seq: number;
  readonly text: string;
  readonly prev: UserText | null;
}

export interface PolicyFold {
  /** call id → the latest call of a watched tool (one an invariant reads the outcome of). */
  readonly calls: PMap<WatchedCall>;
  /** requires-before: `id\0canonical value` → seq of the ok result that satisfies it. */
  readonly done: PMap<number>;
  /** state-precondition: `id\0canonical key` → the last ok read of that object's field. */
  readonly reads: PMap<Read>;
  /** once-per: `id\0canonical value` → the calls made with it, in seq order. */
  readonly once: PMap<readonly { call: string; seq: number }[]>;
  /** arg-from-input: `tool\0scalar` → seq of the first ok result of that tool holding it. */
  readonly scalars: PMap<number>;
  /** The user inputs so far, newest first (only when an arg-from-input reads them). */
  readonly userTexts: UserText | null;
  /** The last user input: its seq and lower-case words. */
  readonly lastUser: { readonly seq: number; readonly words: readonly string[] } | null;
}

export const EMPTY_POLICY_FOLD: PolicyFold = Object.freeze({
  calls: PMap.empty<WatchedCall>(),
  done: PMap.empty<number>(),
  reads: PMap.empty<Read>(),
  once: PMap.empty<readonly { call: string; seq: number }[]>(),
  scalars: PMap.empty<number>(),
  userTexts: null,
  lastUser: null,
});

const NONE: readonly never[] = Object.freeze([]);

/** What a policy's invariants ask for, indexed by tool (cached per invariants array). */
interface Index {
  byTool: Map<string, Invariant[]>;
  /** Tools whose calls and outcomes an invariant reads. */
  watched: Set<string>;
  /** requires-before by the tool that must succeed first. */
  afterOf: Map<string, Extract<Invariant, { kind: "requires-before" }>[]>;
  /** state-precondition by source tool. */
  sourceOf: Map<string, Extract<Invariant, { kind: "state-precondition" }>[]>;
  /** Tools whose results an arg-from-input reads. */
  scalarTools: Set<string>;
  userTexts: boolean;
  /** confirmed-by-input words, tokenised, per invariant id. */
  words: Map<string, string[][]>;
}

const indexes = new WeakMap<readonly Invariant[], Index>();

function push<K, V>(m: Map<K, V[]>, k: K, v: V): void {
  const l = m.get(k);
  if (l) l.push(v);
  else m.set(k, [v]);
}

function indexOf(invariants: readonly Invariant[]): Index {
  const cached = indexes.get(invariants);
  if (cached) return cached;
  const ix: Index = {
    byTool: new Map(),
    watched: new Set(),
    afterOf: new Map(),
    sourceOf: new Map(),
    scalarTools: new Set(),
    userTexts: false,
    words: new Map(),
  };
  for (const inv of invariants) {
    for (const t of new Set(inv.tools)) push(ix.byTool, t, inv);
    if (inv.kind === "requires-before") {
      for (const t of new Set(typeof inv.after === "string" ? [inv.after] : inv.after)) {
        ix.watched.add(t);
        push(ix.afterOf, t, inv);
      }
    } else if (inv.kind === "state-precondition") {
      ix.watched.add(inv.source.tool);
      push(ix.sourceOf, inv.source.tool, inv);
    } else if (inv.kind === "once-per") for (const t of inv.tools) ix.watched.add(t);
    else if (inv.kind === "arg-from-input") {
      for (const f of inv.from) {
        if (f === "user") ix.userTexts = true;
        else {
          ix.watched.add(f.tool);
          ix.scalarTools.add(f.tool);
        }
      }
    } else
      ix.words.set(
        inv.id,
        inv.words.map(wordsOf).filter((w) => w.length > 0),
      );
  }
  indexes.set(invariants, ix);
  return ix;
}

/** Canonical JSON of a value, or a form that can only equal itself when it has none. */
function canon(v: JsonValue): string {
  try {
    return canonicalJson(v);
  } catch {
    return "\u0000" + String(v);
  }
}

/** A text's words, lower case: maximal runs of letters and digits. */
export function wordsOf(text: string): string[] {
  return text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
}

/** The text of an input's content: a string, a `text` field, text parts joined, or canonical JSON. */
export function inputText(content: JsonValue | undefined): string {
  if (typeof content === "string") return content;
  const o = obj(content);
  if (o && typeof o.text === "string") return o.text;
  if (Array.isArray(content)) {
    const parts = content.map((p) => (typeof p === "string" ? p : str(obj(p)?.text))).filter((p): p is string => p !== undefined);
    if (parts.length > 0) return parts.join("\n");
  }
  return content === undefined ? "" : canon(content);
}

/** Whether `phrase` (as words) occurs in `words` as consecutive words. */
function hasPhrase(words: readonly string[], phrase: readonly string[]): boolean {
  outer: for (let i = 0; i + phrase.length <= words.length; i++) {
    for (let j = 0; j < phrase.length; j++) if (words[i + j] !== phrase[j]) continue outer;
    return true;
  }
  return false;
}

const WORD_CHAR = /[A-Za-z0-9_]/;

/** Whether `value` occurs in `text` with no letter, digit or `_` right before or after it. */
function occursIn(text: string, value: string): boolean {
  for (let i = text.indexOf(value); i !== -1; i = text.indexOf(value, i + 1)) {
    const before = i === 0 ? "" : text[i - 1];
    const after = text[i + value.length] ?? "";
    if (!WORD_CHAR.test(before) && !WORD_CHAR.test(after)) return true;
  }
  return false;
}

/** A scalar's text as arg-from-input compares it (strings as they are, numbers as JSON writes them). */
function scalarText(v: JsonValue): string | null {
  if (typeof v === "string") return v;
  if (typeof v === "number" || typeof v === "bigint") return String(v);
  return null;
}

const MAX_SCALARS = 10_000;

/** Every key, string and number in a result (at most MAX_SCALARS). */
function scalarsOf(v: JsonValue | undefined, out: string[]): void {
  if (v === undefined || out.length >= MAX_SCALARS) return;
  const s = scalarText(v);
  if (s !== null) {
    out.push(s);
    return;
  }
  if (v === null || typeof v !== "object") return;
  if (Array.isArray(v)) for (const x of v) scalarsOf(x, out);
  else
    for (const k of Object.keys(v)) {
      if (out.length >= MAX_SCALARS) return;
      out.push(k);
      scalarsOf(v[k], out);
    }
}

function violation(kind: InvariantKind, id: string, evidence: number | null, path: string | null): PolicyVerdict {
  return { kind, id, evidence, path };
}

/** The invariants broken by a tool.call, judged on the fold before it. */
function judge(pf: PolicyFold, ix: Index, tool: string, args: JsonValue): PolicyVerdict[] {
  const out: PolicyVerdict[] = [];
  for (const inv of ix.byTool.get(tool) ?? NONE) {
    switch (inv.kind) {
      case "requires-before": {
        let key = `${inv.id}\u0000`;
        if (inv.sameArg) {
          const v = readPath(args, inv.sameArg.arg);
          if (v.length === 0) break; // nothing to compare: not judged
          key += canon(v[0]);
        }
        if (!pf.done.has(key)) out.push(violation(inv.kind, inv.id, null, inv.sameArg?.arg ?? null));
        break;
      }
      case "state-precondition": {
        const v = readPath(args, inv.arg);
        if (v.length === 0) break;
        const read = pf.reads.get(`${inv.id}\u0000${canon(v[0])}`);
        if (read === undefined) break; // never read: nothing is known of its state
        const value = read.value ?? null; // a field the read lacks reads as null
        if (!inv.in.some((x) => canon(x) === canon(value))) out.push(violation(inv.kind, inv.id, read.seq, inv.source.path));
        break;
      }
      case "once-per": {
        const v = readPath(args, inv.arg);
        if (v.length === 0) break;
        for (const e of pf.once.get(`${inv.id}\u0000${canon(v[0])}`) ?? NONE) {
          if (pf.calls.get(e.call)?.status === "error") continue; // it failed: this is no second one
          out.push(violation(inv.kind, inv.id, e.seq, inv.arg));
          break;
        }
        break;
      }
      case "confirmed-by-input": {
        const last = pf.lastUser;
        const phrases = ix.words.get(inv.id) ?? NONE;
        if (last === null || !phrases.some((p) => hasPhrase(last.words, p))) out.push(violation(inv.kind, inv.id, last?.seq ?? null, null));
        break;
      }
      case "arg-from-input": {
        for (const v of readPath(args, inv.arg)) {
          const s = scalarText(v);
          if (s === null || s === "") continue;
          const found = inv.from.some((f) => {
            if (f !== "user") return pf.scalars.has(`${f.tool}\u0000${s}`);
            for (let t = pf.userTexts; t !== null; t = t.prev) if (occursIn(t.text, s)) return true;
            return false;
          });
          if (!found) {
            out.push(violation(inv.kind, inv.id, null, inv.arg));
            break;
          }
        }
        break;
      }
    }
  }
  return out;
}

/** A tool.call: the invariants it breaks, and the fold with the call recorded. */
export function policyCall(
  pf: PolicyFold,
  policy: RunPolicy | null,
  event: JournalEvent,
): { pf: PolicyFold; verdicts: readonly PolicyVerdict[] } {
  const invariants = policy?.invariants;
  if (invariants === undefined || invariants.length === 0) return { pf, verdicts: NONE };
  const ix = indexOf(invariants);
  const data = event.data;
  const tool = str(data.tool) ?? "";
  const call = str(data.call) ?? "";
  const args = data.args ?? null;
  const verdicts = ix.byTool.has(tool) ? judge(pf, ix, tool, args) : NONE;
  let next = pf;
  if (ix.watched.has(tool)) next = { ...next, calls: next.calls.set(call, { tool, args, seq: event.seq, status: null }) };
  for (const inv of ix.byTool.get(tool) ?? NONE) {
    if (inv.kind !== "once-per") continue;
    const v = readPath(args, inv.arg);
    if (v.length === 0) continue;
    const key = `${inv.id}\u0000${canon(v[0])}`;
    next = { ...next, once: next.once.set(key, [...(next.once.get(key) ?? NONE), { call, seq: event.seq }]) };
  }
  return { pf: next, verdicts: verdicts.length === 0 ? NONE : verdicts };
}

/** A tool.result: a watched call's outcome, and for an ok one what it satisfies or shows. */
export function policyResult(pf: PolicyFold, policy: RunPolicy | null, event: JournalEvent): PolicyFold {
  const invariants = policy?.invariants;
  if (invariants === undefined || invariants.length === 0) return pf;
  const data = event.data;
  const call = str(data.call);
  const status = str(data.status);
  const rec = call === undefined ? undefined : pf.calls.get(call);
  if (rec === undefined || call === undefined || status === undefined) return pf;
  const ix = indexOf(invariants);
  let next: PolicyFold = { ...pf, calls: pf.calls.set(call, { ...rec, status }) };
  if (status !== "ok") return next;
  for (const inv of ix.afterOf.get(rec.tool) ?? NONE) {
    let key = `${inv.id}\u0000`;
    if (inv.sameArg) {
      const v = "afterArg" in inv.sameArg ? readPath(rec.args, inv.sameArg.afterArg) : readPath(data.result, inv.sameArg.afterResult);
      if (v.length === 0) continue;
      key += canon(v[0]);
    }
    if (!next.done.has(key)) next = { ...next, done: next.done.set(key, event.seq) };
  }
  for (const inv of ix.sourceOf.get(rec.tool) ?? NONE) {
    const k = readPath(rec.args, inv.source.arg);
    if (k.length === 0) continue;
    const field = readPath(data.result, inv.source.path);
    next = {
      ...next,
      reads: next.reads.set(`${inv.id}\u0000${canon(k[0])}`, { value: field.length > 0 ? field[0] : null, seq: event.seq }),
    };
  }
  if (ix.scalarTools.has(rec.tool)) {
    const found: string[] = [];
    scalarsOf(data.result, found);
    let scalars = next.scalars;
    for (const s of found) if (!scalars.has(`${rec.tool}\u0000${s}`)) scalars = scalars.set(`${rec.tool}\u0000${s}`, event.seq);
    next = { ...next, scalars };
  }
  return next;
}

/** An `input` from the user: the last user input, and its text when an arg-from-input reads user inputs. */
export function policyInput(pf: PolicyFold, policy: RunPolicy | null, event: JournalEvent): PolicyFold {
  const invariants = policy?.invariants;
  if (invariants === undefined || invariants.length === 0 || event.data.source !== "user") return pf;
  const ix = indexOf(invariants);
  const text = inputText(event.data.content);
  return {
    ...pf,
    lastUser: ix.words.size > 0 ? { seq: event.seq, words: wordsOf(text) } : pf.lastUser,
    userTexts: ix.userTexts ? { seq: event.seq, text, prev: pf.userTexts } : pf.userTexts,
  };
}

/** The fold as plain JSON (the analyzer's snapshot). */
export interface PolicyFoldSnapshot {
  calls: Array<[string, WatchedCall]>;
  done: Array<[string, number]>;
  reads: Array<[string, { value?: JsonValue; seq: number }]>;
  once: Array<[string, Array<{ call: string; seq: number }>]>;
  scalars: Array<[string, number]>;
  /** oldest first */
  userTexts: Array<{ seq: number; text: string }>;
  lastUser: { seq: number; words: string[] } | null;
}

export function policyFoldToJson(pf: PolicyFold): PolicyFoldSnapshot {
  const texts: Array<{ seq: number; text: string }> = [];
  for (let t = pf.userTexts; t !== null; t = t.prev) texts.push({ seq: t.seq, text: t.text });
  return {
    calls: [...pf.calls.entries()].map(([k, v]) => [k, { ...v }]),
    done: [...pf.done.entries()],
    reads: [...pf.reads.entries()].map(([k, v]) => [k, v.value === undefined ? { seq: v.seq } : { value: v.value, seq: v.seq }]),
    once: [...pf.once.entries()].map(([k, v]) => [k, v.map((e) => ({ ...e }))]),
    scalars: [...pf.scalars.entries()],
    userTexts: texts.reverse(),
    lastUser: pf.lastUser && { seq: pf.lastUser.seq, words: [...pf.lastUser.words] },
  };
}

export function policyFoldFromJson(s: PolicyFoldSnapshot | undefined): PolicyFold {
  if (s === undefined) return EMPTY_POLICY_FOLD;
  let userTexts: UserText | null = null;
  for (const t of s.userTexts) userTexts = { seq: t.seq, text: t.text, prev: userTexts };
  return {
    calls: PMap.from(s.calls),
    done: PMap.from(s.done),
    reads: PMap.from(s.reads.map(([k, v]) => [k, { value: v.value, seq: v.seq }])),
    once: PMap.from(s.once),
    scalars: PMap.from(s.scalars),
    userTexts,
    lastUser: s.lastUser,
  };
}
