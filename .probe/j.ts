import { readFileSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { createBlocklist } from "../server/moderation/blocklist.ts";
import { checkContent } from "../server/moderation/content-rules.ts";
import { createSpamModel, featuresOf } from "../server/moderation/spam/model.ts";
const model = createSpamModel(JSON.parse(readFileSync("build/spam-model.json", "utf8")));
const blocklist = createBlocklist(mkdtempSync(path.join(tmpdir(), "p-"))).entries();
for (const text of process.argv.slice(2)) console.log(checkContent(text, { maxLinks: 2, blocklist })?.code ?? "ok", model.score(featuresOf(text)).toFixed(3), text);
