import { createSpamModel, featuresOf } from "../server/moderation/spam/model.ts";
import { train } from "../server/moderation/spam/train.ts";
import { ownCorpus, publicCorpus, split } from "../scripts/spam-corpus.ts";
const own = ownCorpus();
const junk = split(own.junk), ordinary = split(own.ordinary);
const file = train([...junk.training.map((text) => ({ text, label: "spam" as const })), ...ordinary.training.map((text) => ({ text, label: "ham" as const })), ...publicCorpus()]);
const model = createSpamModel(file);
for (const text of process.argv.slice(2)) {
  const f = featuresOf(text);
  const ev = f.map((x) => [x, file.features[x]] as const).filter(([, c]) => c).map(([x, c]) => { const s=(c![0]+1)/(file.docs[0]+2), h=(c![1]+1)/(file.docs[1]+2); return [x, Math.log(s/h).toFixed(2)]; }).sort((a,b)=>Number(b[1])-Number(a[1]));
  console.log(model.score(f).toFixed(3), model.strongestWord(f).toFixed(2), text);
  console.log(ev.filter(([x])=>!String(x).startsWith("g:")).slice(0,12).map(e=>e.join("=")).join("  "));
}
