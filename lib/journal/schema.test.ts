import fs from "node:fs";
import { describe, expect, it } from "vitest";
import { journalJsonSchema } from "./schema";

describe("journal JSON Schema", () => {
  it("served file public/schema/journal-v1.json equals the one generated from the zod schema (npm run schema:json)", () => {
    const served = JSON.parse(fs.readFileSync("public/schema/journal-v1.json", "utf8")) as unknown;
    expect(served).toEqual(JSON.parse(JSON.stringify(journalJsonSchema())));
  });
});
