import { createExportSigner, fileLines } from "../../../server/portability/signature.ts";
import { exportTables } from "../../../server/portability/tables.ts";

type Row = Record<string, string | number | null>;

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
