import { mkdirSync, renameSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { defaultSpamModelFile } from "../server/moderation/spam/filter.ts";
import { train } from "../server/moderation/spam/train.ts";
import { filesOf, projectRoot } from "./build-inputs.ts";
import { ownCorpus, publicCorpus } from "./spam-corpus.ts";

/** What the model is made from: the corpus, the code that reads it, and the package lock. */
const inputs = [
  "server/moderation/corpus",
  "server/moderation/spam",
  "server/moderation/fold.ts",
  "server/moderation/content-rules.ts",
  "server/moderation/site-lists.txt",
  "scripts/spam-model.ts",
  "scripts/spam-corpus.ts",
  "package-lock.json",
];

const newestInput = () =>
  Math.max(
    ...inputs.flatMap(filesOf).map((file) => statSync(path.join(projectRoot, file)).mtimeMs),
  );

/** Trains the model again when it is missing or older than what it is made from. */
export function ensureSpamModel(file = defaultSpamModelFile): boolean {
  const built = statSync(file, { throwIfNoEntry: false })?.mtimeMs ?? 0;
  if (built > newestInput()) return false;
  writeSpamModel(file);
  return true;
}

/**
 * Trains the spam classifier on the whole corpus, ours and the public one,
 * into the file the server reads on the first comment
 * (docs/decisions/025-spam-that-learns.md). Part of `npm run build`; run on
 * its own with `node scripts/spam-model.ts [file]`.
 */
function writeSpamModel(file = defaultSpamModelFile): { features: number; bytes: number } {
  const own = ownCorpus();
  const model = train([
    ...own.junk.map((text) => ({ text, label: "spam" as const })),
    ...own.ordinary.map((text) => ({ text, label: "ham" as const })),
    ...publicCorpus(),
  ]);
  const json = JSON.stringify(model);
  mkdirSync(path.dirname(file), { recursive: true });
  // Written beside and renamed: a server reading it never sees half a file.
  writeFileSync(`${file}.tmp`, json);
  renameSync(`${file}.tmp`, file);
  return { features: Object.keys(model.features).length, bytes: json.length };
}

if (import.meta.main) {
  const file = process.argv[2] ? path.resolve(process.argv[2]) : defaultSpamModelFile;
  const { features, bytes } = writeSpamModel(file);
  console.info(
    `Wrote the spam model to ${path.relative(process.cwd(), file)}: ${features} features, ${Math.round(bytes / 1024)} KB`,
  );
}
