import { copyFileSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { getHeapSpaceStatistics } from "node:v8";
import { createSpamFilter, defaultSpamModelFile } from "../../../server/moderation/spam/filter.ts";
import type { SpamStore } from "../../../server/moderation/spam/store.ts";

/*
 * Run as `node --expose-gc spam-model-held.ts`: prints, as its last line, the MB of
 * heap the build's spam model holds once a filter has loaded it, and the outcome of
 * the comment it screened. A process of its own: in a test worker, what other test
 * files left running allocates while the heap is measured.
 */

const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error("run with --expose-gc");
/**
 * The heap's data and array buffers, not its code and bytecode: V8 compiles on threads
 * of its own, so how much code lands before or after a measure depends on the
 * machine's load (once 6.8 MB against the usual 1.4–1.9 on a busy machine).
 */
const held = () => {
  // Twice: a collection leaves its garbage counted until its pages are swept, on threads
  // of its own that a loaded machine starves (6.3 MB once in CI, the parsed file's 5 MB
  // still counted); the next collection finishes that sweep before it begins.
  gc();
  gc();
  const data = getHeapSpaceStatistics()
    .filter((space) => !/code|trusted/.test(space.space_name))
    .reduce((sum, space) => sum + space.space_used_size, 0);
  return data + process.memoryUsage().arrayBuffers;
};

// A copy: every filter of a process shares one read of a file (filter.ts).
const scratch = mkdtempSync(path.join(tmpdir(), "ewe-spam-model-"));
const modelFile = path.join(scratch, "spam-model.json");
copyFileSync(defaultSpamModelFile, modelFile);
// No owner's decisions: the model as the build wrote it.
const store = {
  examplesStamp: async () => ({ count: 0, lastId: 0 }),
  examplesAfter: async () => [],
} as unknown as SpamStore;
const filter = createSpamFilter({ store, modelFile, holdLinksFromNew: false });
// The first screening compiles the filter's code: what is measured is the model alone.
const comment = "Steam and heat relax the cotton fibres, and the weight of the iron presses them.";
await createSpamFilter({ store, holdLinksFromNew: false }).screen({
  content: comment,
  visitorId: null,
});
const before = held();
const screening = await filter.screen({ content: comment, visitorId: null });
const grownMb = (held() - before) / 1024 ** 2;
rmSync(scratch, { recursive: true, force: true });
process.stdout.write(`${JSON.stringify({ grownMb, outcome: screening.outcome })}\n`);
