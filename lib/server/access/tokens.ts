import "server-only";
/** Random secrets (session cookies, API keys, setup links) and the digests the database keeps of them. */
import { createHash, randomBytes } from "node:crypto";

export const newToken = (prefix = ""): string => prefix + randomBytes(32).toString("base64url");

/** High-entropy tokens need no slow hash: SHA-256 keeps a database copy from being replayed. */
export const digest = (token: string): string => createHash("sha256").update(token).digest("hex");
