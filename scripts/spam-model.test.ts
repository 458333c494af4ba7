import { mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, expect, it } from "vitest";
import { ensureSpamModel, spamModelInputsHash } from "./spam-model.ts";

const folders: string[] = [];
afterEach(() => {
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
  delete process.env.SPAM_MODEL_CACHE;
});

it("copies a model trained on the same inputs from SPAM_MODEL_CACHE, and leaves a newer one alone", () => {
  const folder = mkdtempSync(path.join(os.tmpdir(), "ewe-spam-model-"));
  folders.push(folder);
  const cache = path.join(folder, "cache");
  mkdirSync(cache);
  process.env.SPAM_MODEL_CACHE = cache;
  // In the cache under its inputs' hash, as a training there would have left it.
  const kept = '{"kept":"for these inputs"}';
  writeFileSync(path.join(cache, `${spamModelInputsHash()}.json`), kept);
  writeFileSync(path.join(cache, `${"0".repeat(64)}.json`), '{"other":"inputs"}');
  const file = path.join(folder, "build", "spam-model.json");

  expect(ensureSpamModel(file)).toBe("copied");
  expect(readFileSync(file, "utf8")).toBe(kept);

  // A model newer than its inputs is neither trained nor copied again.
  writeFileSync(path.join(cache, `${spamModelInputsHash()}.json`), "{}");
  const later = new Date(Date.now() + 60_000);
  utimesSync(file, later, later);
  expect(ensureSpamModel(file)).toBeNull();
  expect(readFileSync(file, "utf8")).toBe(kept);
});
