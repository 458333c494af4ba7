import { mkdtempSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { createExportSigner, fileLines } from "../../../server/portability/signature.ts";
import { exportTables } from "../../../server/portability/tables.ts";

export type Row = Record<string, string | number | null>;

/** An export file holding these tables, as `admin export` shapes one (unsigned). */
export function exportFile(tables: Record<string, Row[]>, extra: Record<string, unknown> = {}) {
  const file = path.join(mkdtempSync(path.join(os.tmpdir(), "ewe-import-")), "site.json");
  writeFileSync(
    file,
    JSON.stringify({
      format: "engage-with-engineer-export",
      version: 1,
      exportedAt: "2025-01-01T00:00:00.000Z",
      settings: {},
      tables,
      ...extra,
    }),
  );
  return file;
}

/** A published comment of Asha's on the soap post, as an export holds it. */
export const commentRow = (id: number, extra: Row = {}): Row => ({
  id,
  post_id: "soap",
  parent_id: null,
  user_name: "Asha",
  content: "Hard water wastes soap, and the scum shows it.",
  content_html: null,
  visitor_id: "imported:test:asha",
  status: "published",
  by_owner: 0,
  ip_hash: null,
  created_at: "2024-03-01T10:00:00.000Z",
  updated_at: "2024-03-01T10:00:00.000Z",
  deleted_at: null,
  ...extra,
});

/**
 * An export document signed whole as the site's own export is, with the
 * site's cookie secret (server/portability/signature.ts): what a test that
 * edits the site's own export writes back, so that the import still trusts it.
 */
export function signedExport<T extends { tables: Record<string, Row[]> }>(
  document: T,
  secret: string,
): T & { signature: string } {
  const signature = createExportSigner(secret).file.start();
  const given = exportTables.flatMap((table) => {
    const rows = document.tables[table.name];
    return rows ? [{ table, rows }] : [];
  });
  for (const line of fileLines(document, given)) signature.add(line);
  return { ...document, signature: signature.digest() };
}
