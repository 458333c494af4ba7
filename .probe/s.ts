import { readFileSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { createBlocklist } from "../server/moderation/blocklist.ts";
import { checkContent } from "../server/moderation/content-rules.ts";
import { heldContacts, withoutContacts } from "../server/moderation/spam/contacts.ts";
import { createSpamModel, featuresOf, scoreCounts } from "../server/moderation/spam/model.ts";
import { unseenJunk, unseenOrdinary } from "../tests/support/spam-samples.ts";
const model = createSpamModel(JSON.parse(readFileSync("build/spam-model.json", "utf8")));
const blocklist = createBlocklist(mkdtempSync(path.join(tmpdir(), "p-"))).entries();
function judge(text: string) {
  const f = featuresOf(text);
  const score = scoreCounts(text) ? model.score(f) : 0;
  const r = checkContent(text, { maxLinks: 2, blocklist });
  if (r) return ["refused", score];
  if (score >= 0.9) return ["spam", score];
  if (score >= 0.6) return ["held", score];
  const h = heldContacts(text, { score, strongestWord: model.strongestWord(featuresOf(withoutContacts(text))) });
  return [h.length ? "held-link" : "published", score];
}
for (const { kind, text } of unseenJunk) { const [o, s] = judge(text); console.log(o === "published" ? "!!" : "  ", o, (s as number).toFixed(2), kind, text.slice(0, 60)); }
for (const text of unseenOrdinary) { const [o, s] = judge(text); console.log(o !== "published" ? "!!" : "  ", o, (s as number).toFixed(2), text.slice(0, 70)); }
