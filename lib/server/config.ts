import "server-only";
import { parseExecutorHosts, type ExecutorHosts } from "./live/executor-hosts";

/** Everything configurable comes from the environment; see README "Configuration". */
export interface RetraceConfig {
  databaseUrl: string;
  dialect: "sqlite" | "postgres";
  limits: IngestLimits;
  /** Where the redaction key is (lib/server/redaction-key.ts): RETRACE_REDACTION_KEY, RETRACE_REDACTION_KEY_FILE. */
  redactionKey?: { value?: string; file?: string };
  /** Where the audit-bundle signing key is (lib/server/audit-key.ts): RETRACE_AUDIT_KEY_FILE. */
  auditKeyFile?: string;
  /** Where the key that encrypts executor credentials is (lib/server/live/executor-key.ts): RETRACE_EXECUTOR_KEY_FILE. */
  executorKeyFile?: string;
  /**
   * A trace received over OTLP whose root span has not arrived stays live this long after
   * its last span (RETRACE_OTLP_IDLE_SECONDS, default 300), then is finished without it.
   */
  otlpIdleSeconds?: number;
  /** SQLite: quiet time after a write before the WAL is emptied (RETRACE_WAL_IDLE_MS, default 2000). */
  walIdleMs?: number;
  /** Executor hosts allowed beside public ones (lib/server/live/executor-hosts.ts): RETRACE_EXECUTOR_HOSTS. */
  executorHosts?: ExecutorHosts;
}

export interface IngestLimits {
  /** Longest accepted NDJSON line, bytes. */
  maxLineBytes: number;
  /** Largest accepted request body (after gunzip), bytes. */
  maxBodyBytes: number;
  /**
   * Largest body held whole in memory (after gunzip): an OTLP/HTTP request, a
   * single-document trace export. Streamed bodies (journals, OTLP JSON files) have maxBodyBytes.
   */
  maxDocumentBytes: number;
  /**
   * Largest agent session read line by line (Claude Code, Codex, Gemini CLI, Qwen Code): its
   * text is never held, but its parsed lines are, so it has a limit of its own.
   */
  maxSessionBytes: number;
  /** Most bytes a gzip body may inflate to per compressed byte (a bomb inflates a thousandfold). */
  maxGzipRatio: number;
  /** Most events one run may hold. */
  maxEventsPerRun: number;
  /** Deepest nesting of one event. */
  maxDepth: number;
}

function intFromEnv(env: Record<string, string | undefined>, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === "") return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n <= 0) throw new Error(`${name} must be a positive integer, got "${raw}"`);
  return n;
}

export function loadConfig(env: Record<string, string | undefined> = process.env): RetraceConfig {
  const databaseUrl = env.DATABASE_URL && env.DATABASE_URL !== "" ? env.DATABASE_URL : "file:./data/retrace.db";
  let dialect: RetraceConfig["dialect"];
  if (databaseUrl.startsWith("file:")) dialect = "sqlite";
  else if (/^postgres(ql)?:\/\//.test(databaseUrl)) dialect = "postgres";
  else throw new Error(`DATABASE_URL must start with file: (SQLite) or postgresql:// (PostgreSQL)`);
  return {
    databaseUrl,
    dialect,
    limits: {
      maxLineBytes: intFromEnv(env, "RETRACE_MAX_LINE_BYTES", 8 * 1024 * 1024),
      maxBodyBytes: intFromEnv(env, "RETRACE_MAX_BODY_BYTES", 512 * 1024 * 1024),
      maxDocumentBytes: intFromEnv(env, "RETRACE_MAX_DOCUMENT_BYTES", 64 * 1024 * 1024),
      maxSessionBytes: intFromEnv(env, "RETRACE_MAX_SESSION_BYTES", 256 * 1024 * 1024),
      maxGzipRatio: intFromEnv(env, "RETRACE_MAX_GZIP_RATIO", 100),
      maxEventsPerRun: intFromEnv(env, "RETRACE_MAX_EVENTS_PER_RUN", 2_000_000),
      maxDepth: intFromEnv(env, "RETRACE_MAX_DEPTH", 128),
    },
    redactionKey: { value: env.RETRACE_REDACTION_KEY || undefined, file: env.RETRACE_REDACTION_KEY_FILE || undefined },
    auditKeyFile: env.RETRACE_AUDIT_KEY_FILE || undefined,
    executorKeyFile: env.RETRACE_EXECUTOR_KEY_FILE || undefined,
    otlpIdleSeconds: intFromEnv(env, "RETRACE_OTLP_IDLE_SECONDS", 300),
    walIdleMs: intFromEnv(env, "RETRACE_WAL_IDLE_MS", 2000),
    executorHosts: parseExecutorHosts(env.RETRACE_EXECUTOR_HOSTS),
  };
}
