/**
 * Inspect AI `.eval` log (a zip: `header.json`, `samples/<id>_epoch_<n>.json`, journal and
 * summary members) → the same runs as the JSON log (inspect-ai.ts): one per sample and
 * epoch. Members are inflated one at a time (fflate), so memory holds the archive and one
 * sample, never every sample's tree at once. A member may declare at most `maxMemberBytes`
 * inflated (fflate writes into a buffer of the declared size, so a member that inflates
 * further is cut short and fails to parse): a small zip cannot claim gigabytes.
 */
import { unzipSync } from "fflate";
import { parseJsonExact } from "../journal/parse-line";
import { ImportError } from "./convert";
import { isRecord } from "./json-utils";
import { importInspect } from "./inspect-ai";
import type { ImportedRun, ImportOptions, ImportResult } from "./types";

const SAMPLE = /^samples\/(.+)_epoch_(\d+)\.json$/;
const MAX_MEMBER_BYTES = 64 * 1024 * 1024;

function member(zip: Uint8Array, name: string): unknown {
  const files = unzipSync(zip, { filter: (f) => f.name === name });
  const bytes = files[name];
  if (!bytes) return undefined;
  return parseJsonExact(new TextDecoder().decode(bytes));
}

export function importInspectEval(zip: Uint8Array, opts: ImportOptions = {}): ImportResult {
  const names: string[] = [];
  const max = opts.maxMemberBytes ?? MAX_MEMBER_BYTES;
  let tooBig: string | null = null;
  try {
    unzipSync(zip, {
      filter: (f) => {
        names.push(f.name);
        if (f.originalSize > max) tooBig = `${f.name} (${f.originalSize.toLocaleString("en-US")} bytes)`;
        return false;
      },
    });
  } catch (e) {
    throw new ImportError(
      `the file looks like an Inspect AI .eval archive but is not a readable zip (${e instanceof Error ? e.message : String(e)})`,
    );
  }
  if (tooBig !== null)
    throw new ImportError(
      `a member of the .eval archive inflates to more than ${max.toLocaleString("en-US")} bytes (RETRACE_MAX_DOCUMENT_BYTES): ${tooBig}`,
    );
  if (!names.includes("header.json") && !names.includes("_journal/start.json"))
    throw new ImportError("the .eval archive has neither header.json nor _journal/start.json");
  // header.json is written when the eval ends; a running eval has only the journal's start
  const header = member(zip, "header.json") ?? member(zip, "_journal/start.json");
  const log = isRecord(header) ? { ...header } : {};
  const samples = names
    .filter((n) => SAMPLE.test(n))
    .sort((a, b) => {
      const [, ia, ea] = SAMPLE.exec(a) ?? [];
      const [, ib, eb] = SAMPLE.exec(b) ?? [];
      return Number(ea) - Number(eb) || ia.localeCompare(ib, undefined, { numeric: true });
    });
  const runs: ImportedRun[] = [];
  const warnings: string[] = [];
  // the file's hash stands in for a missing eval id, as for the JSON log
  const text = `${names.join("\n")}\n${zip.length}`;
  for (const name of samples) {
    const sample = member(zip, name);
    const r = importInspect({ ...log, samples: [sample] }, text, opts);
    runs.push(...r.runs);
    for (const w of r.warnings) if (!warnings.includes(w)) warnings.push(w);
  }
  if (samples.length === 0) warnings.push("the .eval archive holds no samples: nothing to import");
  return { format: "inspect-eval", runs, warnings };
}
