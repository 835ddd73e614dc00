/**
 * The one keymap of the run, replay and compare pages: each page's key handler asks
 * `actionFor`, and the `?` dialog lists `KEYMAP`, so what the dialog says is what the keys do.
 */

export type KeyPage = "run" | "replay" | "compare";

type KeyAction =
  "next" | "previous" | "next-mark" | "previous-mark" | "next-step" | "previous-step" | "first" | "last" | "search" | "play" | "shortcuts";

interface KeyBinding {
  action: KeyAction;
  /** KeyboardEvent.key values */
  keys: readonly string[];
  /** what the dialog shows for the keys */
  shown: string;
  /** what it does, per page it works on */
  does: Partial<Record<KeyPage, string>>;
}

export const KEYMAP: readonly KeyBinding[] = [
  {
    action: "next",
    keys: ["j", "ArrowDown", "ArrowRight"],
    shown: "j / ↓ / →",
    does: { run: "next event", replay: "next frame", compare: "next pair" },
  },
  {
    action: "previous",
    keys: ["k", "ArrowUp", "ArrowLeft"],
    shown: "k / ↑ / ←",
    does: { run: "previous event", replay: "previous frame", compare: "previous pair" },
  },
  {
    action: "next-mark",
    keys: ["n"],
    shown: "n",
    does: { run: "next failure or finding", replay: "next divergence or finding", compare: "next difference" },
  },
  {
    action: "previous-mark",
    keys: ["N", "p"],
    shown: "N (shift+n) / p",
    does: { run: "previous failure or finding", replay: "previous divergence or finding", compare: "previous difference" },
  },
  { action: "next-step", keys: ["]"], shown: "]", does: { run: "next step" } },
  { action: "previous-step", keys: ["["], shown: "[", does: { run: "previous step" } },
  { action: "first", keys: ["Home"], shown: "Home", does: { run: "first event", replay: "first frame", compare: "first pair" } },
  { action: "last", keys: ["End"], shown: "End", does: { run: "last event", replay: "last frame", compare: "last pair" } },
  { action: "search", keys: ["/"], shown: "/", does: { run: "search the run's payloads" } },
  { action: "play", keys: [" "], shown: "space", does: { replay: "play or pause" } },
  { action: "shortcuts", keys: ["?"], shown: "?", does: { run: "these shortcuts", replay: "these shortcuts", compare: "these shortcuts" } },
];

/** What a key does on a page, or null (a key the page does not use is left to the browser). */
export function actionFor(page: KeyPage, e: { key: string; altKey?: boolean; ctrlKey?: boolean; metaKey?: boolean }): KeyAction | null {
  if (e.altKey || e.ctrlKey || e.metaKey) return null;
  for (const b of KEYMAP) if (b.does[page] !== undefined && b.keys.includes(e.key)) return b.action;
  return null;
}

/** The bindings a page's dialog lists. */
export function bindingsFor(page: KeyPage): Array<{ shown: string; does: string; action: KeyAction }> {
  return KEYMAP.filter((b) => b.does[page] !== undefined).map((b) => ({ shown: b.shown, does: b.does[page]!, action: b.action }));
}

/** Keys typed into a field are the field's. */
export function isTyping(target: EventTarget | null): boolean {
  const el = target as { tagName?: string; isContentEditable?: boolean } | null;
  if (!el || typeof el.tagName !== "string") return false;
  return !!el.isContentEditable || el.tagName === "INPUT" || el.tagName === "TEXTAREA" || el.tagName === "SELECT";
}

/** The next (dir 1) or previous (dir -1) of sorted `marks` after / before `at`; null at the end. */
export function adjacentMark(marks: ArrayLike<number>, at: number, dir: 1 | -1): number | null {
  if (dir === 1) {
    for (let i = 0; i < marks.length; i++) if (marks[i] > at) return marks[i];
    return null;
  }
  for (let i = marks.length - 1; i >= 0; i--) if (marks[i] < at) return marks[i];
  return null;
}
