import { ContentError, loadContent } from "../content/load.ts";

/** Word counts of the writing, against the minimums the site promises its readers. */
let content: ReturnType<typeof loadContent>;
try {
  content = loadContent();
} catch (error) {
  if (error instanceof ContentError) {
    console.error(error.message);
    process.exit(1);
  }
  throw error;
}

type Row = { group: string; name: string; words: number; minimum: number };
const rows: Row[] = [
  { group: "about", name: "About Me", words: content.about.words, minimum: 600 },
  { group: "home", name: "intro", words: content.home.words, minimum: 0 },
  ...content.stories.map((s) => ({ group: "story", name: s.id, words: s.words, minimum: 250 })),
  ...content.science.map((s) => ({ group: "science", name: s.id, words: s.words, minimum: 150 })),
  ...content.technical.articles.map((a) => ({
    group: "technical",
    name: a.id,
    words: a.words,
    minimum: 300,
  })),
  ...content.ai.articles.map((a) => ({ group: "ai", name: a.id, words: a.words, minimum: 300 })),
  ...content.softSkills.map((s) => ({
    group: "soft skill",
    name: s.id,
    words: s.words,
    minimum: 300,
  })),
  ...content.growth.map((g) => ({ group: "growth", name: g.id, words: g.words, minimum: 0 })),
];

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
console.info(`\n${rows.length} pieces, ${total} words in all.`);
if (short > 0) {
  console.error(`${short} piece(s) below their minimum.`);
  process.exit(1);
}
