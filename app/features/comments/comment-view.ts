import { type HTMLAttributes, createElement as h, type Ref } from "react";
import type { CommentPosition, ReactionCounts } from "../../../contract/api.ts";
import type { LiveComment } from "../../../contract/live-events.ts";
import { plural } from "../../../contract/plural.ts";
import { aroundFold, commentAnchor } from "../../../contract/threads.ts";
import { formatCommentTime } from "../../lib/format-date.ts";
import { Avatar, RemoteAvatar } from "./comment-avatar.ts";

/*
 * The parts of a comment and of an item's engagement that the server also
 * renders into the page's HTML (server/web/engagement-pages.ts). Written with
 * createElement instead of JSX so that Node runs this file as it is, and the
 * server and the island render the very same markup.
 */

/** Links that leave the site from what others wrote: never followed, never trusted. */
export const outbound = "nofollow ugc noopener";

/**
 * Who wrote it and when: "Author" on the owner's own comments (a flag only the
 * server sets, docs/decisions/016-owner-voice.md); to its writer, whether it
 * still waits for the owner's approval.
 */
export function CommentHeader({
  comment,
  awaitingApproval = false,
}: {
  comment: LiveComment;
  awaitingApproval?: boolean;
}) {
  return h(
    "div",
    { className: "flex flex-wrap items-center justify-between gap-2" },
    h(
      "span",
      { className: "flex items-center gap-2" },
      comment.remote?.avatar
        ? h(RemoteAvatar, { src: comment.remote.avatar })
        : h(Avatar, { seed: comment.avatar }),
      h("span", { className: "comment-author" }, comment.userName),
      // From the Fediverse: their handle, and the post the comment was.
      comment.remote
        ? h(
            "span",
            { className: "comment-remote" },
            h("span", { className: "comment-handle" }, comment.remote.handle),
            comment.remote.url
              ? h(
                  "a",
                  { href: comment.remote.url, rel: outbound, className: "comment-original" },
                  "Original post",
                )
              : null,
          )
        : null,
      comment.byOwner
        ? h("span", { className: "comment-badge", title: "The site's author" }, "Author")
        : null,
      awaitingApproval
        ? h(
            "span",
            {
              className:
                "rounded-full border border-amber-400/40 bg-amber-400/10 px-2 py-0.5 text-xs text-amber-200",
              title: "Only you can see this comment until the site owner approves it.",
            },
            "Awaiting approval",
          )
        : null,
    ),
    // On a phone the time has a line of its own: the served page's ("10:21 AM UTC") is
    // longer than the live one's, and beside the name only one of them might fit.
    h(
      "span",
      { className: "basis-full text-xs text-slate-400 sm:basis-auto" },
      h("time", { dateTime: comment.createdAt }, formatCommentTime(comment.createdAt)),
      // An edit keeps the time it was first written; the mark says it changed since.
      comment.updatedAt !== comment.createdAt
        ? h(
            "span",
            {
              className: "comment-edited",
              title: `Edited ${formatCommentTime(comment.updatedAt)}`,
            },
            " · edited",
          )
        : null,
    ),
  );
}

/**
 * The text as the server rendered its Markdown (docs/product.md, "Comments"):
 * markdown-it with raw HTML escaped, http(s) links only, so this HTML holds
 * no markup a reader typed. Never built from anything else.
 */
export function CommentText({
  html,
  fold,
}: {
  html: string;
  /** In the island, what folds a long comment (comment-fold.tsx); the served HTML shows it whole. */
  fold?: HTMLAttributes<HTMLDivElement> & { ref?: Ref<HTMLDivElement> };
}) {
  return h("div", {
    ...fold,
    className: fold?.className ? `comment-text ${fold.className}` : "comment-text",
    // HTML only the server makes, from Markdown with raw HTML escaped (server/comments/markdown.ts).
    dangerouslySetInnerHTML: { __html: html },
  });
}

/** Whose comment it is, as a list of replies is named: a deleted or held place has no name. */
export const whose = (comment: LiveComment) =>
  comment.deleted
    ? comment.held
      ? "a comment awaiting approval"
      : "a deleted comment"
    : comment.userName;

/**
 * What a deleted comment with replies leaves: its place, so the thread reads
 * (docs/product.md, "Replies"). A `held` one waits for the owner again.
 */
export function DeletedComment({ held = false }: { held?: boolean | undefined }) {
  return h(
    "p",
    { className: "comment-deleted" },
    held ? "Comment awaiting approval" : "Comment deleted",
  );
}

/*
 * A comment's buttons are small under its text on a wide screen; below the
 * `sm` width (a phone) each is a 44 px target, as the header's icon buttons
 * are (docs/product.md, "Reacting and commenting").
 */
export const smallButton = "rounded-lg px-3 py-1 text-xs max-sm:min-h-11 max-sm:min-w-11";
export const replyButton = `${smallButton} text-accent ring-1 ring-line hover:bg-white/5`;
export const showMoreButton =
  "rounded-lg px-4 py-2 text-sm font-semibold text-accent ring-1 ring-line hover:bg-white/5";
export const addCommentButton =
  "rounded-lg px-4 py-2 text-sm font-semibold text-accent ring-1 ring-accent/50 hover:bg-accent/10";

/** The form for a new comment (comment-composer.tsx): its box and its reply-mail option. */
export const inputClasses =
  "w-full rounded-lg border border-line bg-ink px-3 py-2 text-sm text-slate-100 placeholder:text-slate-500";
export const composerOptions = "flex flex-wrap items-center gap-x-4 gap-y-2 text-sm text-slate-300";
/** The label is the checkbox's target: 44 px tall on a phone. */
export const notifyLabel = "inline-flex items-center gap-2 max-sm:min-h-11";
export const notifyCheckbox = "h-4 w-4 accent-accent max-sm:size-5";
export const notifyText = "Email me when someone replies";
export const commentPlaceholder = "Share a thought or a question…";

/**
 * A button of the live comments, in its place and disabled until they
 * arrive; without JavaScript, not drawn.
 */
const waitingButton = (className: string, label: string) =>
  h(
    "button",
    {
      type: "button",
      disabled: true,
      className: `${className} noscript:hidden disabled:opacity-60`,
    },
    label,
  );

/**
 * The comment box a reader with a stored name, or the signed-in owner, will
 * get in place of "Add a comment", drawn the same way and shown instead of it
 * only when the page's first script found that name or the owner's
 * (`html[data-named]`, `html[data-owner]`, app/layouts/page.astro).
 */
const waitingComposer = () =>
  h(
    "form",
    { className: "waiting-composer relative space-y-2", inert: true },
    h("textarea", {
      rows: 3,
      disabled: true,
      placeholder: commentPlaceholder,
      className: inputClasses,
    }),
    // Its own box, which the owner's placeholder hides (comments.css): the utilities' `flex` would win.
    h(
      "div",
      { className: "waiting-options" },
      h(
        "div",
        { className: composerOptions },
        h(
          "label",
          { className: notifyLabel },
          h("input", { type: "checkbox", disabled: true, className: notifyCheckbox }),
          notifyText,
        ),
      ),
    ),
    h("p", { className: "text-sm text-slate-400" }),
    h("button", { type: "submit", disabled: true, className: "btn-primary" }, "Post comment"),
  );

/** A comment as the served page shows it, or the place of a deleted or held one. */
function CommentBody({ comment }: { comment: LiveComment }) {
  return comment.deleted
    ? h(DeletedComment, { held: comment.held })
    : h(
        "div",
        null,
        h(CommentHeader, { comment }),
        h(CommentText, { html: comment.html }),
        h(
          "div",
          { className: "mt-3 flex flex-wrap gap-2 noscript:hidden" },
          waitingButton(replyButton, "Reply"),
        ),
      );
}

/** The comments section's landmark name, after its post, as the reactions' group is. */
export const commentsLabel = (title: string) => `Comments on ${title}`;

/** What a long discussion's fold says of what it holds, when that is known. */
export const foldedLabel = (count: number) => `${plural(count, "comment")} in between`;

/** A thread as the served page shows it: its first comment, and its replies under it. */
function StaticThread({
  start,
  replies,
  anchors,
}: {
  start: LiveComment;
  replies: LiveComment[];
  anchors: boolean;
}) {
  return h(
    "li",
    { id: anchors ? commentAnchor(start.id) : undefined, className: "comment" },
    h(CommentBody, { comment: start }),
    replies.length > 0
      ? h(
          "ul",
          { className: "comment-replies", "aria-label": `Replies to ${whose(start)}` },
          replies.map((reply) =>
            h(
              "li",
              {
                key: reply.id,
                id: anchors ? commentAnchor(reply.id) : undefined,
                className: "comment",
              },
              h(CommentBody, { comment: reply }),
            ),
          ),
        )
      : null,
  );
}

/**
 * A post's comments as the page is served, before (or without) the live
 * island: the discussion as it opens, its beginning and its latest threads
 * with a link to the folded middle, or a stretch of that middle, which the
 * server renders for the link (docs/decisions/032-long-discussions-open-at-both-ends.md).
 * It stands in the discussion's panel under the reactions (app/islands/panel-frame.tsx),
 * on an item's page and in a card alike, with the live comments' buttons
 * drawn in their places, disabled, so that the live comments, once they
 * arrive, take the same space.
 */
export function StaticComments({
  title,
  comments,
  total,
  heading = "h4",
  id,
  fold = null,
  backHref = null,
  notice = null,
  anchors = false,
}: {
  /** The post's title, which names the section: a list page holds one per post. */
  title: string;
  comments: LiveComment[];
  /** How many the post has in all. */
  total: number;
  /** h4 under a card's h3 on a list page; h3 on an item's own page. */
  heading?: "h3" | "h4";
  /** The section's id, where the links to other pages lead. */
  id?: string;
  /**
   * Comments left out after the thread at `after`: a link to them, and how
   * many they are when that is known.
   */
  fold?: { after: CommentPosition; href: string; count: number | null } | null;
  /** On a stretch of the middle: back to the discussion as it opens. */
  backHref?: string | null;
  /** Said above the comments (a link to a page that does not exist). */
  notice?: string | null;
  /**
   * On an item's own page, each comment has its anchor (`#comment-N`, where
   * reply mails lead) until the live comments replace this copy; a list page
   * holds every card's copy, and only an open card's live comments carry them.
   */
  anchors?: boolean;
}) {
  const link = "text-sm font-semibold text-accent underline underline-offset-2";
  const list = (threads: { start: LiveComment; replies: LiveComment[] }[]) =>
    threads.length > 0
      ? h(
          "ul",
          { className: "space-y-3" },
          threads.map((thread) => h(StaticThread, { key: thread.start.id, ...thread, anchors })),
        )
      : null;
  const { above, below } = aroundFold(comments, fold?.after ?? null);
  return h(
    "section",
    {
      id,
      "aria-label": commentsLabel(title),
      className: "static-comments space-y-4",
    },
    h(
      heading,
      { className: "font-semibold text-slate-100" },
      "Comments ",
      h("span", { className: "text-slate-400" }, `(${total})`),
    ),
    notice ? h("p", { role: "alert", className: "text-sm text-amber-200" }, notice) : null,
    comments.length === 0
      ? h(
          "p",
          { className: "text-sm text-slate-400" },
          backHref ? "No more comments." : "No comments yet.",
          // Without JavaScript there is no comment form to start it with.
          backHref ? null : h("span", { className: "js-only" }, " Start the conversation."),
        )
      : list(above),
    fold
      ? h(
          "div",
          { className: "comments-fold space-y-2" },
          fold.count !== null && fold.count > 0
            ? h("p", { className: "text-sm text-slate-400" }, foldedLabel(fold.count))
            : null,
          // The size of the live comments' button.
          h(
            "a",
            { href: fold.href, className: `inline-block ${showMoreButton}` },
            "Show more comments",
          ),
        )
      : null,
    list(below),
    backHref
      ? h("p", null, h("a", { href: backHref, className: link }, "Back to the latest comments"))
      : null,
    // One block, the last: only the one shown takes space.
    h(
      "div",
      null,
      waitingButton(`waiting-add ${addCommentButton}`, "Add a comment"),
      waitingComposer(),
    ),
  );
}

/** "4 comments · 12 reactions": what a collapsed card says of its discussion. */
export function EngagementSummary({
  counts,
  comments,
  fediverse = 0,
}: {
  counts: ReactionCounts;
  comments: number | null;
  /** Likes and boosts from the Fediverse (docs/fediverse.md), on an item's own page. */
  fediverse?: number;
}) {
  const reactions = Object.values(counts).reduce((sum, count) => sum + count, 0);
  const parts = [
    ...(comments === null ? [] : [plural(comments, "comment")]),
    plural(reactions, "reaction"),
    ...(fediverse > 0 ? [`${fediverse} from the Fediverse`] : []),
  ];
  return h("span", { className: "engagement-summary" }, parts.join(" · "));
}
