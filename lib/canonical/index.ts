/**
 * RFC 8785 (JCS) canonical JSON and SHA-256, identical in the browser, node and tests.
 *
 * JCS for JSON values is: object keys sorted by UTF-16 code units, no whitespace,
 * strings and numbers serialised as ECMAScript's JSON.stringify does. safe-stable-
 * stringify in deterministic mode is exactly that and 2.5x faster than `canonicalize`
 * (the RFC co-author's implementation), which the tests keep as the reference and check
 * against on every fixture and on fuzzed values. Integers beyond 2^53 are kept as bigint
 * and written as their exact digits.
 */
import { configure } from "safe-stable-stringify";
import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex, utf8ToBytes } from "@noble/hashes/utils.js";
import type { JsonValue } from "../journal/types";

const stringify = configure({ bigint: true, deterministic: true, circularValue: TypeError, strict: true });

/** Canonical JSON text of a JSON value (RFC 8785). */
export function canonicalJson(value: JsonValue | unknown): string {
  const out = stringify(value);
  if (out === undefined) throw new TypeError("value has no JSON form");
  // The serializer builds the text by concatenation, which V8 keeps as a tree of pieces
  // (a rope); every later use (hashing `prev + "\n" + text`, posting rows to the writer
  // thread) would walk that tree again. Reading one character flattens it once, here:
  // measured, this halves canonicalize + hash + store on the ingest path. (A bare
  // `out.charCodeAt(0);` is dropped by production minifiers; the test keeps the read.)
  if (out.charCodeAt(0) === 0xfeff) throw new TypeError("canonical JSON never starts with a BOM");
  return out;
}

/**
 * `canonicalJson` for a value whose object keys are already in code-unit order at every
 * level (as enumerated) and which holds no bigint: JSON.stringify then writes exactly the
 * JCS text (its numbers and string escapes are the ones RFC 8785 adopts), natively and
 * about twice as fast. The ingest parser establishes both conditions in the walk it makes
 * anyway; a test checks the equality against the reference on fuzzed values.
 */
export function canonicalJsonOfSorted(value: JsonValue | unknown): string {
  return JSON.stringify(value);
}

let sha256Impl = (text: string): string => bytesToHex(sha256(utf8ToBytes(text)));

/** Lowercase hex SHA-256 of a UTF-8 string. */
export function sha256Hex(text: string): string {
  return sha256Impl(text);
}

/** SHA-256 of a text given in pieces (a file read as a stream): `update` each piece, then `hex`. */
export interface Sha256Hasher {
  update(text: string): void;
  hex(): string;
}

function portableHasher(): Sha256Hasher {
  const h = sha256.create();
  return {
    update: (text) => void h.update(utf8ToBytes(text)),
    hex: () => bytesToHex(h.digest()),
  };
}

let hasherImpl: () => Sha256Hasher = portableHasher;

/** A new incremental SHA-256 (the same digest as `sha256Hex` of the pieces joined). */
export function sha256Hasher(): Sha256Hasher {
  return hasherImpl();
}

/**
 * The server swaps in node's native SHA-256 (several times faster than the portable one
 * on the ingest hot path); results are identical, which a test checks. `hasher` is the
 * incremental one, when the caller has it.
 */
export function useSha256Implementation(impl: (text: string) => string, hasher?: () => Sha256Hasher): void {
  sha256Impl = impl;
  if (hasher) hasherImpl = hasher;
}

/** `sha256:` + hex of the canonical JSON of a value: the format's state hash. */
export function hashOf(value: unknown): string {
  return "sha256:" + sha256Hex(canonicalJson(value));
}

/** Deep equality by canonical form (RFC 8785), as the analysis rules define "canonically equal". */
export function canonicallyEqual(a: unknown, b: unknown): boolean {
  return canonicalJson(a) === canonicalJson(b);
}
