import { existsSync, readFileSync } from "node:fs";
import { loadContent } from "../content/load.ts";
import { servicePageIn } from "../server/assistant/index-file.ts";
import { sitePassages } from "../server/assistant/passages.ts";
import {
  assistantIndexFile,
  type Finding,
  loadIndex,
  serializeIndex,
} from "../server/assistant/retrieval.ts";
import { loadConfig } from "../server/config.ts";
import { answerable, unanswerable } from "./assistant-questions.ts";

/**
 * `npm run assistant:eval` (docs/product.md, "Chat with Me"): asks the
 * assistant the questions of scripts/assistant-questions.ts and prints how
 * often the first source is the page that answers (top-1), how often that page
 * is among the sources (top-3), and the share of questions the site cannot
 * answer that it declined. Reads the built index when there is one, else
 * indexes the content as the build would. `--verbose` lists every miss.
 */
const verbose = process.argv.includes("--verbose");
const config = loadConfig(process.env, { productionRules: false });
const file = assistantIndexFile(config.buildDir);
const json = existsSync(file)
  ? readFileSync(file, "utf8")
  : serializeIndex(
      sitePassages(loadContent(), {
        servicePage: servicePageIn(config.clientRoot),
        owner: config.owner,
      }),
    );
const index = loadIndex(json);

/** A passage's page as the set names it: a service by its id, wherever its page is. */
const pageOf = (finding: Finding & { known: true }, at: number) => {
  const source = finding.sources[at];
  if (!source) return null;
  if (at === 0 && finding.service) return `/services/${finding.service.id}`;
  return source.service ? `/services/${source.service.id}` : source.page;
};

let top1 = 0;
let top3 = 0;
for (const { question, page, previous } of answerable) {
  const finding = index.find(question, previous);
  const pages = finding.known ? [0, 1, 2].map((at) => pageOf(finding, at)) : [];
  if (pages[0] === page) top1 += 1;
  if (pages.includes(page)) top3 += 1;
  if (verbose && pages[0] !== page) {
    console.info(`MISS ${question} → ${pages.join(", ") || "declined"} (wanted ${page})`);
  }
}
let declined = 0;
for (const question of unanswerable) {
  const finding = index.find(question);
  if (!finding.known) declined += 1;
  else if (verbose) console.info(`ANSWERED ${question} → ${finding.best.url}: ${finding.quote}`);
}

const percent = (n: number, of: number) => `${((100 * n) / of).toFixed(1)}%`;
console.info(
  `Passages: ${index.passages.length} (${existsSync(file) ? file : "indexed from content/"})`,
);
console.info(`Answerable questions: ${answerable.length}`);
console.info(`  top-1 ${percent(top1, answerable.length)} (${top1}), bound 85%`);
console.info(`  top-3 ${percent(top3, answerable.length)} (${top3}), bound 95%`);
console.info(
  `Unanswerable questions: ${unanswerable.length}, declined ${percent(declined, unanswerable.length)} (${declined}), bound 90%`,
);
const met =
  top1 / answerable.length >= 0.85 &&
  top3 / answerable.length >= 0.95 &&
  declined / unanswerable.length >= 0.9;
console.info(met ? "All bounds met." : "A bound is MISSED.");
process.exitCode = met ? 0 : 1;
