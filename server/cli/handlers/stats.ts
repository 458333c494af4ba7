import { noReactions, reactionTypes } from "../../../contract/limits.ts";
import type { CommandContext } from "../command.ts";
import { formatTable, printedJson } from "../table.ts";

export async function stats({ values, stdout, engagement }: CommandContext) {
  const repositories = await engagement();
  const subscribers = await repositories.subscribers.count();
  const reactions = await repositories.reactions.countsByItem();
  const comments = await repositories.comments.countsByPost();
  const items = reactions.map(({ kind, itemId, counts }) => ({
    kind,
    id: itemId,
    reactions: counts,
    comments: kind === "science" ? (comments.get(itemId) ?? 0) : null,
  }));
  for (const [postId, count] of comments) {
    if (!items.some((item) => item.kind === "science" && item.id === postId)) {
      items.push({
        kind: "science",
        id: postId,
        reactions: noReactions(),
        comments: count,
      });
    }
  }
  items.sort((a, b) => a.kind.localeCompare(b.kind) || a.id.localeCompare(b.id));
  if (printedJson({ values, stdout }, { subscribers, items })) return;
  const sum = (pick: (item: (typeof items)[number]) => number) =>
    String(items.reduce((total, item) => total + pick(item), 0));
  stdout.write(`Subscribers: ${subscribers}\n\n`);
  stdout.write(
    formatTable(
      ["kind", "item", ...reactionTypes, "comments"],
      [
        ...items.map((item) => [
          item.kind,
          item.id,
          ...reactionTypes.map((type) => item.reactions[type]),
          item.comments === null ? "-" : item.comments,
        ]),
        [
          "total",
          "",
          ...reactionTypes.map((type) => sum((item) => item.reactions[type])),
          sum((item) => item.comments ?? 0),
        ],
      ],
    ),
  );
}
