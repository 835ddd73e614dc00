/**
 * Writes what is generated from the zod schema (tests check both are current):
 * public/schema/journal-v1.json, the JSON Schema served at /schema/journal-v1.json, and
 * lib/journal/generated/validators.ts, the ingest hot path's compiled validators.
 */
import fs from "node:fs";
import { journalJsonSchema } from "../lib/journal/schema";
import { validatorModuleSource } from "../lib/journal/validator-source";

fs.mkdirSync("public/schema", { recursive: true });
fs.writeFileSync("public/schema/journal-v1.json", JSON.stringify(journalJsonSchema(), null, 2) + "\n");
console.log("wrote public/schema/journal-v1.json");
fs.mkdirSync("lib/journal/generated", { recursive: true });
fs.writeFileSync("lib/journal/generated/validators.ts", validatorModuleSource());
console.log("wrote lib/journal/generated/validators.ts");
