import "server-only";
/**
 * Text as a text column holds it, the same on both databases. PostgreSQL refuses U+0000
 * in text (SQLite keeps it), so a NUL in a name, a tool, a step or any other text stored in
 * a column of its own is stored there as U+FFFD, the replacement character, on both. The
 * event itself keeps it exactly: its stored JSON writes it as the escape `\u0000`.
 * Applied where text reaches the database: every SQL parameter (sql.ts, sql-postgres.ts)
 * and the event rows' text columns, which bypass parameters (ingest/flow.ts).
 */
export function storableText(s: string): string {
  return s.includes("\0") ? s.replaceAll("\0", "\uFFFD") : s;
}

/** storableText of a nullable column. */
export const storableOrNull = (s: string | null): string | null => (s === null ? null : storableText(s));
