import { group } from "../command.ts";

const handlers = () => import("../handlers/spam.ts");

export const spamCommands = group(handlers, [
  {
    name: "spam stats",
    usage: "[--days N] [--json]",
    summary: "what the spam filter did, and what it learnt from you",
    help: `Prints what the spam filter did with new comments over the last 30 days
(or --days N): how many were published, held for you and stored as spam, each
with its reason (score: the classifier; stranger-link: a link or contact
details from a browser not yet trusted; learned: a name or site you marked as
spam three times; honeypot; moderation: the MODERATION setting). Then your
decisions it learns from (approvals, spam marks, rejections, bans), with
your corrections (you overruled the filter) apart from your confirmations, and the
model: what it was trained on, its thresholds, and the names it learnt.

  --days N   the period, in days (1 to 3650)
  --json     the same as JSON, for scripts`,
  },
]);
