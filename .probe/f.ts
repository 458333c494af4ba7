import { readFileSync } from "node:fs";
import { createSpamModel, featuresOf } from "../server/moderation/spam/model.ts";
const file = JSON.parse(readFileSync("build/spam-model.json", "utf8"));
const model = createSpamModel(file);
const texts = process.argv.length > 2 ? process.argv.slice(2) : readFileSync(0, "utf8").split("\n").filter(Boolean);
for (const text of texts) console.log(model.score(featuresOf(text)).toFixed(3), text);
