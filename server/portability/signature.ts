import { createHmac, timingSafeEqual } from "node:crypto";
import { exportRow } from "./columns.ts";
import type { ExportRows } from "./tables.ts";

/*
 * How an export proves that it is the site's own, as written
 * (docs/decisions/030-import-and-export.md, docs/decisions/060-what-an-unsigned-file-may-say.md):
 * the export signs its whole content (its header, then each table's name
 * and each row as its line in the file, in the file's order) with a key
 * derived from the site's cookie secret; an import trusts what only the
 * owner could have written (the owner's comments, approvals, confirmed
 * addresses, the audit trail…) only when the file carries this site's
 * signature. Anyone without the secret can write a file, or change one,
 * but not sign it. Exports of earlier versions signed their comments only
 * (`commentsSignature`, still written for them): such a file keeps the
 * owner's marks on its comments, and nothing else.
 */

/** A hex HMAC-SHA256. */
const signaturePattern = /^[0-9a-f]{64}$/;

export type Signer = {
  /** A new signature, fed the lines it covers, in the file's order. */
  start(): { add(line: string): void; digest(): string };
  /** Whether `signature` is this site's for these lines. */
  verifies(lines: Iterable<string>, signature: unknown): boolean;
};

export type ExportSigner = {
  /** Of the whole file: what marks it as this site's own. */
  file: Signer;
  /** Of the comments alone, as exports of earlier versions were signed. */
  comments: Signer;
};

function signer(cookieSecret: string, purpose: string): Signer {
  // A key of its own, so that no value computed for another use stands for this one.
  const key = createHmac("sha256", cookieSecret).update(purpose).digest();
  const start = () => {
    const mac = createHmac("sha256", key);
    return {
      add(line: string) {
        mac.update(`${line}\n`);
      },
      digest: () => mac.digest("hex"),
    };
  };
  return {
    start,
    verifies(lines, signature) {
      if (typeof signature !== "string" || !signaturePattern.test(signature)) return false;
      const mac = start();
      for (const line of lines) mac.add(line);
      return timingSafeEqual(Buffer.from(mac.digest(), "hex"), Buffer.from(signature, "hex"));
    },
  };
}

export const createExportSigner = (cookieSecret: string): ExportSigner => ({
  file: signer(cookieSecret, "export file signature"),
  comments: signer(cookieSecret, "export comments signature"),
});

/** The header's line the file's signature covers: what the file says it is, and when. */
export const headerLine = (header: Readonly<Record<string, unknown>>) =>
  JSON.stringify([header.format, header.version, header.exportedAt, header.settings ?? null]);

/** The line that opens a table's rows in what the file's signature covers. */
export const tableLine = (name: string) => `table ${JSON.stringify(name)}`;

/** What the file's signature covers: its header, then each table's name and rows, in order. */
export function* fileLines(
  header: Parameters<typeof headerLine>[0],
  tables: readonly Pick<ExportRows, "table" | "rows">[],
): Generator<string> {
  yield headerLine(header);
  for (const { table, rows } of tables) {
    yield tableLine(table.name);
    for (const row of rows) yield exportRow(table, row);
  }
}

/**
 * What a file's signatures vouch for, read back: `own`, the whole file is
 * this site's export as written; `comments`, its comments are (so too when
 * only an earlier version's comments' signature matches). `tables` are the
 * file's rows as checked, before anything changes them.
 */
export function signedBy(
  signer: ExportSigner | null,
  file: Readonly<Record<string, unknown>>,
  tables: readonly ExportRows[],
): { own: boolean; comments: boolean } {
  if (!signer) return { own: false, comments: false };
  const own = signer.file.verifies(fileLines(file, tables), file.signature);
  const comments = tables.find((t) => t.table.name === "science_comments");
  const commentLines = comments?.rows.map((row) => exportRow(comments.table, row)) ?? [];
  return { own, comments: own || signer.comments.verifies(commentLines, file.commentsSignature) };
}
