/**
 * The working directory and home of a recording mapped to a replay's, and back. A coding
 * agent replayed in a scratch copy sends its own paths: they become the recorded ones before
 * a request is matched, and the recorded answers' paths become the replay's before they
 * reach the agent (a recorded "write /old/dir/out.txt" writes in the new directory).
 * Claude Code 2.1 also names its memory folder after the working directory
 * (`HOME/.claude/projects/-tmp-w-a/memory/`): that form is mapped too.
 */

export interface PlaceMap {
  /** [from, to] pairs, applied in order (longest first). */
  pairs: Array<[string, string]>;
}

function escape(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** Where an agent ran: its working directory, home, and config folders set in its environment. */
export type Places = Record<string, string | undefined>;

/** Claude Code's project folder name for a working directory (`/tmp/w-a` → `-tmp-w-a`). */
export function projectSlug(dir: string): string {
  return dir.replace(/[^A-Za-z0-9]/g, "-");
}

/**
 * The map from the places `from` to the places `to` (same names; pairs that are equal or
 * missing are left out), longest first so a folder inside another maps as itself.
 */
export function placeMap(from: Places, to: Places): PlaceMap {
  const pairs: Array<[string, string]> = [];
  for (const key of Object.keys(from)) {
    const a = from[key]?.replace(/\/+$/, "");
    const b = to[key]?.replace(/\/+$/, "");
    if (!a || !b || a === b || a === "/") continue;
    pairs.push([a, b]);
    if (key === "cwd") pairs.push([projectSlug(a), projectSlug(b)]);
  }
  pairs.sort((x, y) => y[0].length - x[0].length);
  return { pairs };
}

/** `text` with each place replaced where it is a whole path prefix (`/a/b` in `/a/b/c`, not in `/a/bc`). */
export function mapPlaces(text: string, map: PlaceMap): string {
  let out = text;
  for (const [from, to] of map.pairs) {
    if (!out.includes(from)) continue;
    out = out.replace(new RegExp(`${escape(from)}(?![A-Za-z0-9_.~-])`, "g"), () => to);
  }
  return out;
}

/** Every string of a JSON value mapped (keys too: tools name paths in both). */
export function mapPlacesDeep(value: unknown, map: PlaceMap): unknown {
  if (map.pairs.length === 0) return value;
  if (typeof value === "string") return mapPlaces(value, map);
  if (Array.isArray(value)) return value.map((v) => mapPlacesDeep(v, map));
  if (value !== null && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value))
      Object.defineProperty(out, mapPlaces(k, map), { value: mapPlacesDeep(v, map), enumerable: true, writable: true, configurable: true });
    return out;
  }
  return value;
}
