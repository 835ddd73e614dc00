/** Writes public/schema/journal-v1.json from the zod schema (a test checks it is current). */
import fs from "node:fs";
import { journalJsonSchema } from "../lib/journal/schema";

fs.mkdirSync("public/schema", { recursive: true });
fs.writeFileSync("public/schema/journal-v1.json", JSON.stringify(journalJsonSchema(), null, 2) + "\n");
console.log("wrote public/schema/journal-v1.json");
