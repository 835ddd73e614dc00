/**
 * RFC 3339 timestamps as exact epoch nanoseconds (bigint): the schema accepts up to nine
 * fractional digits and offsets, and "strictly older" must not be decided by a rounding.
 */
const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?([Zz]|[+-]\d{2}:\d{2})$/;

/** Epoch nanoseconds of an RFC 3339 timestamp, or null when it is not one. */
export function epochNanos(ts: string): bigint | null {
  const m = RFC3339.exec(ts);
  if (!m) return null;
  const [, y, mo, d, h, mi, s, frac, zone] = m;
  const date = new Date(0);
  // setUTCFullYear, unlike Date.UTC, does not map years 0–99 to 1900–1999.
  date.setUTCFullYear(Number(y), Number(mo) - 1, Number(d));
  date.setUTCHours(Number(h), Number(mi), Number(s), 0);
  let ms = date.getTime();
  if (Number.isNaN(ms)) return null;
  if (zone !== "Z" && zone !== "z") {
    const sign = zone[0] === "-" ? -1 : 1;
    ms -= sign * (Number(zone.slice(1, 3)) * 60 + Number(zone.slice(4, 6))) * 60_000;
  }
  const nanosInSecond = frac ? BigInt(frac.padEnd(9, "0")) : 0n;
  return BigInt(ms) * 1_000_000n + nanosInSecond;
}

/** Seconds (possibly fractional) as nanoseconds. */
export function secondsToNanos(seconds: number): bigint {
  if (Number.isInteger(seconds)) return BigInt(seconds) * 1_000_000_000n;
  return BigInt(Math.round(seconds * 1e9));
}
