import { createElement as h } from "react";
import type { ReactionCounts } from "../../../contract/api.ts";
import type { LiveComment } from "../../../contract/live-events.ts";
import { formatCommentTime } from "../../lib/format-date.ts";

/*
 * The parts of a comment and of an item's engagement that the server also
 * renders into the page's HTML (server/web/engagement-pages.ts). Written with
 * createElement instead of JSX so that Node runs this file as it is, and the
 * server and the island render the very same markup.
 */

/** Who wrote it and when. */
export function CommentHeader({ comment }: { comment: LiveComment }) {
  return h(
    "div",
    { className: "flex flex-wrap items-baseline justify-between gap-2" },
    h("span", { className: "comment-author" }, comment.userName),
    h(
      "time",
      { dateTime: comment.createdAt, className: "text-xs text-slate-400" },
      formatCommentTime(comment.createdAt),
    ),
  );
}

/** The text, always as text: user input never becomes markup. */
export function CommentText({ content }: { content: string }) {
  return h("p", { className: "comment-text" }, content);
}

/** A post's comments as the page is served, before (or without) the live island. */
export function StaticComments({
  comments,
  heading = "h4",
}: {
  comments: LiveComment[];
  /** h4 under a card's h3 on a list page; h3 on an item's own page. */
  heading?: "h3" | "h4";
}) {
  return h(
    "section",
    {
      "aria-label": "Comments",
      className: "static-comments mt-6 space-y-4 border-t border-line pt-5",
    },
    h(
      heading,
      { className: "font-semibold text-slate-100" },
      "Comments ",
      h("span", { className: "text-slate-400" }, `(${comments.length})`),
    ),
    comments.length === 0
      ? h("p", { className: "text-sm text-slate-400" }, "No comments yet. Start the conversation.")
      : h(
          "ul",
          { className: "space-y-3" },
          comments.map((comment) =>
            h(
              "li",
              { key: comment.id, className: "comment" },
              h(CommentHeader, { comment }),
              h(CommentText, { content: comment.content }),
            ),
          ),
        ),
  );
}

const plural = (count: number, one: string) => `${count} ${one}${count === 1 ? "" : "s"}`;

/** "4 comments · 12 reactions": what a collapsed card says of its discussion. */
export function EngagementSummary({
  counts,
  comments,
}: {
  counts: ReactionCounts;
  comments: number | null;
}) {
  const reactions = Object.values(counts).reduce((sum, count) => sum + count, 0);
  const parts = [
    ...(comments === null ? [] : [plural(comments, "comment")]),
    plural(reactions, "reaction"),
  ];
  return h("span", { className: "engagement-summary" }, parts.join(" · "));
}
