/**
 * An upload detects its format once, on its first bytes: the former /api/imports detected
 * up to three times (the route's head, the importer's whole text, the journal check).
 */
import fs from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it, vi } from "vitest";
import { answerUpload } from "@/lib/server/upload";
import { freshDb, type TestDb } from "../helpers/db";
import { CORPUS } from "./helpers";

const calls = vi.hoisted(() => ({ n: 0 }));
vi.mock("@/lib/importers/detect", async (original) => {
  const mod = await original<typeof import("@/lib/importers/detect")>();
  // detectBytes calls the module's own detectFormat, so each entry point counts once
  return {
    ...mod,
    detectFormat: (...args: Parameters<typeof mod.detectFormat>) => {
      calls.n++;
      return mod.detectFormat(...args);
    },
    detectBytes: (...args: Parameters<typeof mod.detectBytes>) => {
      calls.n++;
      return mod.detectBytes(...args);
    },
  };
});

let t: TestDb | undefined;
afterAll(async () => {
  await t?.cleanup();
});

describe("one format detection per upload", () => {
  for (const rel of [
    "langfuse/langfuse-qa-chatbot-mcp-toolcall.json",
    "otel-genai/kagent-helm-agent.tempo-otlp.json",
    "swe-agent/pydicom-1458-gpt4.traj",
  ]) {
    it(`${rel} through /api/imports`, async () => {
      t ??= await freshDb("sqlite");
      const db = t.open();
      const bytes = fs.readFileSync(path.join(CORPUS, rel));
      const req = new Request(`http://localhost/api/imports?name=${path.basename(rel)}`, { method: "POST", body: bytes });
      calls.n = 0;
      const answer = await answerUpload(db, req, "any", "default");
      expect(answer.status).toBe(201);
      expect(calls.n).toBe(1);
    });
  }
});
