import type { Column, ColumnType } from "./columns.ts";
import { exportedSettings, exportFormat, exportTables, exportVersion } from "./tables.ts";

/*
 * The JSON Schema of an export, made from the same table list the export and
 * the import use, so the three cannot drift; docs/export-schema.json is this,
 * written out (a test keeps it so).
 */

const typesOf: Record<ColumnType, Record<string, unknown>> = {
  int: { type: "integer" },
  real: { type: "number" },
  time: { type: "string", format: "date-time" },
  text: { type: "string" },
};

function columnSchema(column: Column): Record<string, unknown> {
  const base: Record<string, unknown> = column.flag
    ? { type: "integer", enum: [0, 1] }
    : column.oneOf
      ? { type: "string", enum: column.oneOf }
      : typesOf[column.type];
  if (!column.nullable) return base;
  return { ...base, type: [base.type as string, "null"] };
}

export function exportJsonSchema(): Record<string, unknown> {
  const tables: Record<string, unknown> = {};
  for (const table of exportTables) {
    tables[table.name] = {
      type: "array",
      description: `Rows in order of ${table.key.join(", ")}.`,
      items: {
        type: "object",
        additionalProperties: false,
        required: table.columns.filter((c) => !c.nullable).map((c) => c.name),
        properties: Object.fromEntries(table.columns.map((c) => [c.name, columnSchema(c)])),
      },
    };
  }
  return {
    $schema: "https://json-schema.org/draft/2020-12/schema",
    title: "Engage with Engineer export",
    description:
      "Everything a site owner owns, as written by `npm run admin -- export` and read back by `npm run admin -- import --from export`. Settings are listed for reference only: an import ignores them.",
    type: "object",
    required: ["format", "version", "exportedAt", "tables"],
    properties: {
      format: { const: exportFormat },
      version: { type: "integer", const: exportVersion },
      exportedAt: { type: "string", format: "date-time" },
      settings: {
        type: "object",
        propertyNames: { enum: [...exportedSettings] },
      },
      tables: { type: "object", additionalProperties: false, properties: tables },
      commentsSignature: {
        type: "string",
        pattern: "^[0-9a-f]{64}$",
        description:
          "HMAC-SHA256 of the science_comments rows, each as its line in the file, under a key derived from the site's cookie secret. An import keeps the owner's marks on comments (by_owner, visitor_id \"owner\") only where this is its own site's signature; elsewhere those comments come in as readers'.",
      },
    },
  };
}
