import { createHash } from "node:crypto";
import { copyFileSync, mkdirSync, renameSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { defaultSpamModelFile } from "../server/moderation/spam/filter.ts";
import { train } from "../server/moderation/spam/train.ts";
import { filesOf, hashFiles, projectRoot } from "./build-inputs.ts";
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

/** The inputs' contents, which name a model in SPAM_MODEL_CACHE. */
export const spamModelInputsHash = () => hashFiles(createHash("sha256"), inputs).digest("hex");

/** Written beside and renamed: a server (or another run) reading it never sees half a file. */
function place(file: string, write: (temporary: string) => void): void {
  mkdirSync(path.dirname(file), { recursive: true });
  const temporary = `${file}.${process.pid}.tmp`;
  write(temporary);
  renameSync(temporary, file);
}

/**
 * Trains the model again when it is missing or older than what it is made
 * from. With SPAM_MODEL_CACHE (a folder; `npm test` sets one), a model
 * trained before on the same inputs is copied from there instead, and a new
 * one is kept there: a clean checkout then trains none.
 */
export function ensureSpamModel(file = defaultSpamModelFile): "trained" | "copied" | null {
  const built = statSync(file, { throwIfNoEntry: false })?.mtimeMs ?? 0;
  if (built > newestInput()) return null;
  const cacheDir = process.env.SPAM_MODEL_CACHE;
  const cached = cacheDir && path.join(cacheDir, `${spamModelInputsHash()}.json`);
  if (cached && statSync(cached, { throwIfNoEntry: false })) {
    place(file, (temporary) => copyFileSync(cached, temporary));
    return "copied";
  }
  writeSpamModel(file);
  if (cached) place(cached, (temporary) => copyFileSync(file, temporary));
  return "trained";
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
  place(file, (temporary) => writeFileSync(temporary, json));
  return { features: Object.keys(model.features).length, bytes: json.length };
}

if (import.meta.main) {
  const file = process.argv[2] ? path.resolve(process.argv[2]) : defaultSpamModelFile;
  const { features, bytes } = writeSpamModel(file);
  console.info(
    `Wrote the spam model to ${path.relative(process.cwd(), file)}: ${features} features, ${Math.round(bytes / 1024)} KB`,
  );
}
