import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { createBlocklist } from "../server/moderation/blocklist.ts";
import { checkContent } from "../server/moderation/content-rules.ts";
const blocklist = createBlocklist(mkdtempSync(path.join(tmpdir(), "p-"))).entries();
for (const text of process.argv.slice(2)) console.log(checkContent(text, { maxLinks: 2, blocklist }), text);
