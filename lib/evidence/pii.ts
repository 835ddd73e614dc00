/**
 * Personal data for the `reviewer` profile: e-mail addresses, phone numbers, card numbers
 * that pass Luhn, IBANs whose check digits hold, IPv4 and IPv6 addresses. Each value
 * found is replaced by a keyed placeholder `[pii:<kind>:<12 hex>]`.
 *
 * Payloads are attacker-controlled, so every expression here has bounded quantifiers
 * only and no nested unbounded repetition: the work per start position is bounded by a
 * constant, so a scan is linear in the text whatever it holds.
 */
import { isIPv6 } from "node:net";

export type PiiKind = "email" | "card" | "iban" | "ipv6" | "ipv4" | "phone";

interface Detector {
  kind: PiiKind;
  re: RegExp;
  valid?: (match: string) => boolean;
}

const OCTET = "(?:25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])";

/** In this order: a card number is taken before a phone could claim its digits. */
const DETECTORS: readonly Detector[] = [
  {
    kind: "email",
    re: /(?<![A-Za-z0-9._%+-])[A-Za-z0-9._%+-]{1,64}@[A-Za-z0-9-]{1,63}(?:\.[A-Za-z0-9-]{1,63}){0,8}\.[A-Za-z]{2,24}(?![A-Za-z0-9-])/g,
  },
  { kind: "card", re: /(?<![0-9])[0-9](?:[ -]?[0-9]){12,18}(?![0-9])/g, valid: luhn },
  { kind: "iban", re: /(?<![A-Za-z0-9])[A-Z]{2}[0-9]{2}(?: ?[A-Z0-9]){11,30}(?![A-Za-z0-9])/g, valid: ibanValid },
  {
    kind: "ipv6",
    re: /(?<![A-Za-z0-9:.])[0-9A-Fa-f:.]{2,45}(?![A-Za-z0-9:.])/g,
    valid: (s) => /[0-9A-Fa-f]/.test(s) && (s.includes("::") || s.split(":").length === 8) && isIPv6(s),
  },
  { kind: "ipv4", re: new RegExp(`(?<![0-9.])(?:${OCTET}\\.){3}${OCTET}(?!\\.?[0-9])`, "g") },
  // international (+ and 7 to 15 digits with separators) or the North American 3-3-4 shape;
  // dates (4-2-2) and bare numbers are not phones
  {
    kind: "phone",
    re: /(?<![0-9A-Za-z+])(?:\+[0-9](?:[ .()-]{0,2}[0-9]){6,14}|\(?[0-9]{3}\)?[ .-][0-9]{3}[ .-][0-9]{4})(?![0-9])/g,
    valid: (s) => !s.startsWith("+") || /[0-9]$/.test(s),
  },
];

export function luhn(s: string): boolean {
  const digits = s.replace(/[^0-9]/g, "");
  if (digits.length < 13 || digits.length > 19) return false;
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = digits.charCodeAt(digits.length - 1 - i) - 48;
    if (i % 2 === 1) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return sum % 10 === 0;
}

/** ISO 13616: move the first four characters to the end, letters to 10..35, mod 97 = 1. */
export function ibanValid(s: string): boolean {
  const iban = s.replace(/ /g, "");
  if (iban.length < 15 || iban.length > 34) return false;
  const moved = iban.slice(4) + iban.slice(0, 4);
  let rem = 0;
  for (const ch of moved) {
    const c = ch.charCodeAt(0);
    const v = c >= 65 ? c - 55 : c - 48;
    rem = v >= 10 ? (rem * 100 + v) % 97 : (rem * 10 + v) % 97;
  }
  return rem === 1;
}

/**
 * `s` with each personal value replaced by what `placeholder` gives for its kind and text.
 * Detectors run one after another on the text the previous one left (a placeholder holds
 * 12 lower-case hex digits and no separator, so no later detector takes it): linear.
 */
export function replacePii(s: string, placeholder: (kind: PiiKind, value: string) => string): string {
  // a cheap test first: most strings hold no digit, @ or colon
  if (!/[0-9@:]/.test(s)) return s;
  let out = s;
  for (const d of DETECTORS) {
    d.re.lastIndex = 0;
    out = out.replace(d.re, (m) => (d.valid === undefined || d.valid(m) ? placeholder(d.kind, m) : m));
  }
  return out;
}

/** The kinds found in `s` (for tests and reports). */
export function piiKindsIn(s: string): PiiKind[] {
  const kinds: PiiKind[] = [];
  replacePii(s, (k) => {
    kinds.push(k);
    return `[pii:${k}:000000000000]`;
  });
  return kinds;
}
