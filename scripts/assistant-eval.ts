import { existsSync, readFileSync } from "node:fs";
import { loadContent } from "../content/load.ts";
import { servicePageIn } from "../server/assistant/index-file.ts";
import { sitePassages } from "../server/assistant/passages.ts";
import { assistantIndexFile, loadIndex, serializeIndex } from "../server/assistant/retrieval.ts";
import { loadConfig } from "../server/config.ts";
import { askAll, askedRight } from "./assistant-questions.ts";

/**
 * `npm run assistant:eval` (docs/product.md, "Chat with Me"): asks the
 * assistant the questions of scripts/assistant-questions.ts and prints how
 * often the first source is the page that answers (top-1), how often that page
 * is among the sources (top-3), and the share of questions the site cannot
 * answer that it declined, with the table of both: asked, right, answered
 * from another page, declined, answered. Reads the built index when there is
 * one, else indexes the content as the build would. `--verbose` lists every miss.
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
const pad = (n: number, width = 5) => String(n).padStart(width);

const asked = askAll(index);
const answers = asked.filter((one) => one.wanted !== null);
const declines = asked.filter((one) => one.wanted === null);
const top1 = answers.filter(askedRight).length;
const top3 = answers.filter((one) => one.pages.includes(one.wanted as string)).length;
const declined = declines.filter(askedRight).length;
const answeredElsewhere = answers.filter((one) => one.pages.length > 0 && !askedRight(one)).length;
if (verbose) {
  for (const { question, wanted, pages } of asked.filter((one) => !askedRight(one))) {
    const got = pages.join(", ") || "declined";
    console.info(
      `${wanted ? "MISS" : "ANSWERED"} ${question} → ${got}${wanted ? ` (wanted ${wanted})` : ""}`,
    );
  }
}

const percent = (n: number, of: number) => `${((100 * n) / of).toFixed(1)}%`;
console.info(
  `Passages: ${index.passages.length} (${existsSync(file) ? file : "indexed from content/"})`,
);
console.info("                              asked  right  from another page  declined  answered");
console.info(
  `  the site answers             ${pad(answers.length)}  ${pad(top1)}  ${pad(answeredElsewhere, 17)}  ${pad(answers.length - top1 - answeredElsewhere, 8)}`,
);
console.info(
  `  the site cannot answer       ${pad(declines.length)}  ${pad(declined)}  ${pad(0, 17).replace("0", " ")}  ${pad(declined, 8)}  ${pad(declines.length - declined, 8)}`,
);
console.info(`Answerable questions: ${answers.length}`);
console.info(`  top-1 ${percent(top1, answers.length)} (${top1}), bound 85%`);
console.info(`  top-3 ${percent(top3, answers.length)} (${top3}), bound 95%`);
console.info(
  `Unanswerable questions: ${declines.length}, declined ${percent(declined, declines.length)} (${declined}), bound 90%`,
);
const met =
  top1 / answers.length >= 0.85 &&
  top3 / answers.length >= 0.95 &&
  declined / declines.length >= 0.9;
console.info(met ? "All bounds met." : "A bound is MISSED.");
process.exitCode = met ? 0 : 1;
