import { plural } from "../../../contract/plural.ts";
import { dayMs } from "../../lib/time.ts";
import { createSpamFilter } from "../../moderation/spam/filter.ts";
import { createSpamStore } from "../../moderation/spam/store.ts";
import { type CommandContext, daysOption } from "../command.ts";
import { formatTable, printedJson } from "../table.ts";

/** The owner's decisions, as the stats name them. */
const decisionNames: Record<string, string> = {
  approve: "approved (published what was held or caught)",
  publish: "published from the spam list",
  spam: "marked as spam",
  ban: "writers banned",
};

export async function spamStats({ values, stdout, store, config }: CommandContext) {
  const days = daysOption(values, 3650) ?? 30;
  const spamStore = createSpamStore(await store());
  const filter = createSpamFilter({
    store: spamStore,
    holdLinksFromNew: config.HOLD_LINKS_FROM_NEW,
    ...(config.SPAM_MODEL_FILE ? { modelFile: config.SPAM_MODEL_FILE } : {}),
  });
  const stats = await spamStore.stats(new Date(Date.now() - days * dayMs));
  const model = await filter.describe();
  if (printedJson({ values, stdout }, { days, ...stats, model })) return;
  const total = (outcome: string) =>
    stats.outcomes.filter((row) => row.outcome === outcome).reduce((n, row) => n + row.count, 0);
  stdout.write(`New comments in the last ${plural(days, "day")}:\n`);
  stdout.write(
    formatTable(
      ["outcome", "reason", "comments"],
      [
        ...["published", "pending", "spam"].map((outcome) => [
          outcome === "pending" ? "held" : outcome,
          "all",
          String(total(outcome)),
        ]),
        ...stats.outcomes
          .filter((row) => row.outcome !== "published" && row.reason)
          .map((row) => [
            row.outcome === "pending" ? "held" : row.outcome,
            row.reason ?? "",
            row.count,
          ]),
      ],
    ),
  );
  const judged = (rows: { source: string; count: number }[]) =>
    formatTable(
      ["decision", "comments"],
      rows.map((row) => [decisionNames[row.source] ?? row.source, row.count]),
      { empty: "  none", names: 1 },
    );
  stdout.write(`\nYour decisions it learnt from, in the same days:\n`);
  stdout.write(judged(stats.decisions));
  stdout.write(
    "\nOf those, your corrections (you overruled the filter: published what it called junk, or marked as junk what it published):\n",
  );
  stdout.write(judged(stats.corrections));
  stdout.write("\nand your confirmations (you marked as junk what it held or stored as spam):\n");
  stdout.write(judged(stats.confirmations));
  stdout.write("\nThe model:\n");
  if (!model.trainedOn || !model.thresholds) {
    stdout.write("  not built: `npm run build` trains it (build/spam-model.json).\n");
  } else {
    const { spam, ham, publicSpam, publicHam } = model.trainedOn;
    stdout.write(
      `  trained on ${spam} junk and ${ham} ordinary comments, and ${publicSpam + publicHam} public mails
  held from a score of ${model.thresholds.hold}, stored as spam from ${model.thresholds.spam}
  learning from ${model.ownerExamples} of your decisions in all
  names and sites learnt from your spam marks: ${model.learnedTerms.length > 0 ? model.learnedTerms.join(", ") : "none yet"}
`,
    );
  }
}
