import type { BuildOptions } from "esbuild";

export const SQLITE_WRITER_ENTRY: string;
export const SQLITE_WRITER_OUT: string;
export const NODE_BUNDLE_OPTIONS: BuildOptions;
/** Builds lib/server/generated/sqlite-writer.worker.mjs; its path. */
export function buildSqliteWriter(): Promise<string>;
