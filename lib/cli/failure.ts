/**
 * What the CLI says when a command fails. A database Retrace never migrated answers "no
 * such table" (SQLite) or 42P01 (PostgreSQL) on the first query: the user is told what to
 * do about it, not only which table was missing.
 */
export function failureMessage(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  const code = err && typeof err === "object" && "code" in err ? (err as { code: unknown }).code : undefined;
  if (/^no such table: /.test(message) || code === "42P01")
    return `the database has no Retrace tables yet (${message}): run \`retrace migrate\` (npm run db:migrate) on it first`;
  return message;
}
