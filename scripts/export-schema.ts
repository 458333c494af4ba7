import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { z } from "zod";
import { rowSchema } from "../server/portability/columns.ts";
import {
  exportedSettings,
  exportFormat,
  exportTables,
  exportVersion,
} from "../server/portability/tables.ts";

/**
 * docs/export-schema.json, the documented shape of `admin export`, made from
 * the table list and the row schemas the export and the import use, so the
 * three cannot drift. `npm run export-schema` writes it;
 * scripts/export-schema.test.ts fails when it is out of date.
 */
const schemaFile = path.join(import.meta.dirname, "..", "docs", "export-schema.json");

const exportSchema = z
  .object({
    format: z.literal(exportFormat),
    version: z
      .literal(exportVersion)
      .describe(
        "An import reads this version and every earlier one (docs/backups.md says what each added): version 1's suppressions and soft_bounces rows carry the address (email) where later ones carry email_hash (and domain), which it keeps as the importing site's digests. A later version is refused.",
      ),
    exportedAt: z.iso.datetime(),
    settings: z.partialRecord(z.enum(exportedSettings), z.unknown()).optional(),
    tables: z.strictObject(
      Object.fromEntries(
        exportTables.map((table) => [
          table.name,
          z
            .array(rowSchema(table))
            .optional()
            .describe(`Rows in order of ${table.key.join(", ")}.`),
        ]),
      ),
    ),
    commentsSignature: z
      .string()
      .regex(/^[0-9a-f]{64}$/)
      .optional()
      .describe(
        "HMAC-SHA256 of the science_comments rows, each as its line in the file, under a key derived from the site's cookie secret, as exports of earlier versions were signed. Where it is the importing site's own and `signature` is not, the comments keep the owner's marks (by_owner, visitor_id \"owner\"), and the rest is read as from a file of elsewhere.",
      ),
    signature: z
      .string()
      .regex(/^[0-9a-f]{64}$/)
      .optional()
      .describe(
        "HMAC-SHA256 of the whole file (its format, version, time and settings, then each table's name and each row as its line, in order), under another key derived from the site's cookie secret. Only where this is the importing site's own signature are the owner's marks, approvals, confirmed subscriptions and reply addresses, schedules, mails still to go, the audit trail, the spam filter's examples, the calendar feed's address and the browsers' ids kept.",
      ),
  })
  .meta({
    title: "Engage with Engineer export",
    description:
      "Everything a site owner owns, as written by `npm run admin -- export` and read back by `npm run admin -- import --from export`. Settings are listed for reference only: an import ignores them.",
  });

// As an import reads it: optional fields may be absent, and other fields at the top are ignored.
const jsonSchema = () => z.toJSONSchema(exportSchema, { io: "input", target: "draft-2020-12" });

export const schemaText = (): string => `${JSON.stringify(jsonSchema(), null, 2)}\n`;

if (import.meta.main) {
  writeFileSync(schemaFile, schemaText());
  process.stdout.write(`Wrote ${schemaFile}\n`);
}

export const writtenSchema = (): string => readFileSync(schemaFile, "utf8");
