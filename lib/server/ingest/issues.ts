import "server-only";
/**
 * The errors and warnings of one request, bounded whatever the input: the first
 * LISTED_ISSUES of each are kept (with their lines), the rest only counted, so a body of a
 * million bad lines answers with a hundred and a count, not a million entries. Reading
 * stops at MAX_INVALID_LINES invalid lines (flow.ts): past that, the file is not a journal
 * worth reading to the end, and nothing of it is stored.
 */
import type { IngestError } from "./types";

/** Errors (and, separately, warnings) listed in an answer; the rest are counted. */
export const LISTED_ISSUES = 100;
/** Invalid lines after which reading stops and nothing is stored. */
export const MAX_INVALID_LINES = 1000;

export class IssueList {
  readonly listed: IngestError[] = [];
  /** Every issue pushed, listed or not. */
  total = 0;

  push(e: IngestError): void {
    this.total++;
    if (this.listed.length < LISTED_ISSUES) this.listed.push(e);
  }

  /** Issues counted but not listed. */
  get more(): number {
    return this.total - this.listed.length;
  }
}
