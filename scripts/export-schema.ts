import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { exportJsonSchema } from "../server/portability/json-schema.ts";

/**
 * docs/export-schema.json, the documented shape of `admin export`, written
 * from the table list the export itself uses. `npm run export-schema` writes
 * it; scripts/export-schema.test.ts fails when it is out of date.
 */
export const schemaFile = path.join(import.meta.dirname, "..", "docs", "export-schema.json");

export const schemaText = (): string => `${JSON.stringify(exportJsonSchema(), null, 2)}\n`;

if (import.meta.main) {
  writeFileSync(schemaFile, schemaText());
  process.stdout.write(`Wrote ${schemaFile}\n`);
}

export const writtenSchema = (): string => readFileSync(schemaFile, "utf8");
