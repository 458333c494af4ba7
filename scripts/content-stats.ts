import { exitOnContentError, loadContent } from "../content/load.ts";
import { collectionRows, wordRows } from "./content-minimums.ts";

/** Word counts of the writing and files per collection, against their minimums. */
const content = exitOnContentError(loadContent);

const rows = wordRows(content);
let short = 0;
console.info(`${"group".padEnd(12)}${"item".padEnd(42)}${"words".padStart(7)}${"min".padStart(6)}`);
for (const row of rows) {
  const ok = row.words >= row.minimum;
  if (!ok) short++;
  console.info(
    `${row.group.padEnd(12)}${row.name.padEnd(42)}${String(row.words).padStart(7)}${String(row.minimum || "-").padStart(6)}${ok ? "" : "  SHORT"}`,
  );
}
const total = rows.reduce((sum, row) => sum + row.words, 0);
console.info(`\n${rows.length} pieces, ${total} words in all.\n`);

console.info(`${"collection".padEnd(54)}${"files".padStart(7)}${"min".padStart(6)}`);
for (const row of collectionRows(content)) {
  const ok = row.files >= row.minimum;
  if (!ok) short++;
  console.info(
    `${`${row.folder}/`.padEnd(54)}${String(row.files).padStart(7)}${String(row.minimum).padStart(6)}${ok ? "" : "  SHORT"}`,
  );
}
if (short > 0) {
  console.error(`\n${short} piece(s) or collection(s) below their minimum.`);
  process.exit(1);
}
