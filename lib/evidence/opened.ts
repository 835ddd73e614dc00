/**
 * Runs opened from a verified audit bundle: their ids and the provenance kept on the run.
 * A bundle run's id is `bundle:<12 hex>:<the run's id in the bundle>`, the hex from the
 * bundle's SHA-256 and the project it was opened in, so it never meets a live run of the
 * same id nor the same bundle opened in another project. Only that import writes such ids.
 */
import { createHash } from "node:crypto";
import { RUN_ID_PATTERN } from "../journal/schema";

const BUNDLE_RUN_PREFIX = "bundle:";

export const isBundleRunId = (id: string): boolean => id.startsWith(BUNDLE_RUN_PREFIX);

/** The id a bundle's run gets in a project (null when the bundle's id is too long to fit). */
export function bundleRunId(project: string, bundleSha256: string, run: string): string | null {
  const tag = createHash("sha256").update(`${project}\n${bundleSha256}`).digest("hex").slice(0, 12);
  const id = `${BUNDLE_RUN_PREFIX}${tag}:${run}`;
  return RUN_ID_PATTERN.test(id) ? id : null;
}

/** What a bundle run keeps of where it came from (Run.bundle, JSON). */
export interface BundleProvenance {
  /** SHA-256 of the bundle file as uploaded */
  sha256: string;
  /** SHA-256 of its manifest.json (what the signature covers) */
  manifestSha256: string;
  keyId: string;
  /** signed by this deployment's own key */
  signedHere: boolean;
  exportedAt: string;
  exporter: string;
  profile: string;
  /** the run's id in the bundle (and in the deployment that exported it) */
  run: string;
  /** the project the run belonged to there */
  project: string;
  events: number;
  /** the bundle journal's last chain hash, checked when the bundle was opened */
  lastHash: string | null;
  openedBy: string;
  openedAt: string;
}

export function parseProvenance(text: string | null | undefined): BundleProvenance | null {
  if (!text) return null;
  try {
    const v = JSON.parse(text) as BundleProvenance;
    return typeof v === "object" && v !== null && typeof v.sha256 === "string" ? v : null;
  } catch {
    return null;
  }
}
