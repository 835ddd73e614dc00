/** The hour a recent timestamp fell in ("YYYY-MM-DDTHH") and its epoch ms (see msOf). */
let hourKey = "";
let hourMs = 0;

const digit = (ts: string, i: number) => ts.charCodeAt(i) - 48;

/** Epoch ms of an event timestamp, as Date.parse gives it (0 when it gives none). */
export function msOf(ts: string): number {
  // Recorders write UTC with milliseconds; events of one run share their hour, so only the
  // minutes, seconds and milliseconds are read here (Date.parse showed in ingest's profile).
  if (
    ts.length === 24 &&
    ts.charCodeAt(23) === 90 /* Z */ &&
    ts.charCodeAt(13) === 58 &&
    ts.charCodeAt(16) === 58 &&
    ts.charCodeAt(19) === 46
  ) {
    const mm = digit(ts, 14) * 10 + digit(ts, 15);
    const ss = digit(ts, 17) * 10 + digit(ts, 18);
    const ms = digit(ts, 20) * 100 + digit(ts, 21) * 10 + digit(ts, 22);
    // the ts pattern guarantees digits; the ranges are checked since it allows 60 seconds
    if (mm < 60 && ss < 60 && ts.startsWith(hourKey) && hourKey !== "") return hourMs + mm * 60_000 + ss * 1000 + ms;
  }
  const ms = Date.parse(ts);
  if (!Number.isFinite(ms)) return 0;
  if (ts.length === 24 && ts.charCodeAt(23) === 90 && digit(ts, 11) * 10 + digit(ts, 12) < 24) {
    const hour = Date.parse(ts.slice(0, 13) + ":00:00.000Z");
    if (Number.isFinite(hour)) {
      hourKey = ts.slice(0, 13);
      hourMs = hour;
    }
  }
  return ms;
}
