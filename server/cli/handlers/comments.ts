import { z } from "zod";
import { loadEngagementCatalog } from "../../../content/catalog.ts";
import { ownersComment } from "../../moderation/owner-actions.ts";
import {
  AdminError,
  type CommandContext,
  exitCodes,
  ownerAction,
  parseId,
  usageError,
} from "../command.ts";
import { listed } from "../table.ts";

/** `2025-06-01` (midnight UTC) or a full ISO-8601 time, on a day the calendar has. */
function parseSince(value: string): Date {
  if (z.iso.date().safeParse(value).success) return new Date(`${value}T00:00:00Z`);
  if (z.iso.datetime({ offset: true }).safeParse(value).success) return new Date(value);
  throw usageError(
    `--since must be a date like 2025-06-01 or 2025-06-01T12:00:00Z, not "${value}".`,
  );
}

type ListedComment = {
  id: number;
  postId: string;
  createdAt: string;
  userName: string;
  content: string;
  parentId: number | null;
  status?: string;
};

/** `comments list` (with each comment's status) and `comments pending`. */
function listedComments(
  read: (context: CommandContext) => Promise<ListedComment[]>,
  withStatus: boolean,
) {
  const status = (c: ListedComment) => (withStatus ? [c.status ?? ""] : []);
  return listed(
    read,
    ["id", "post", "created_at", "name", "comment", ...(withStatus ? ["status"] : []), "reply_to"],
    (c) => [
      c.id,
      c.postId,
      c.createdAt,
      c.userName,
      c.content,
      ...status(c),
      c.parentId === null ? "" : c.parentId,
    ],
  );
}

export const commentsList = listedComments(async ({ values, engagement }) => {
  const since = typeof values.since === "string" ? parseSince(values.since) : undefined;
  const comments = await (await engagement()).comments.listForOwner({
    ...(typeof values.post === "string" ? { postId: values.post } : {}),
    ...(since ? { since } : {}),
  });
  // A post removed from the content keeps its comments; a mistyped id has none.
  const post = values.post;
  if (
    typeof post === "string" &&
    comments.length === 0 &&
    !loadEngagementCatalog().science.has(post)
  ) {
    throw new AdminError(
      `There is no science post "${post}". Its id is the last part of its address: /science/<id>.`,
      exitCodes.notFound,
    );
  }
  return comments;
}, true);

const commentId = ({ positionals }: CommandContext) => parseId(positionals[0], "The comment id");
const noComment = (id: number) => `There is no comment ${id}.`;

export const commentsDelete = ownerAction(
  commentId,
  async ({ moderationActions, actor }, id) => (await moderationActions()).remove(actor, id),
  (id) => `Deleted comment ${id}.\n`,
  noComment,
);

export const commentsPending = listedComments(
  async ({ engagement }) => (await engagement()).comments.listForOwner({ status: "pending" }),
  false,
);

export const commentsApprove = ownerAction(
  commentId,
  async ({ moderationActions, actor }, id) => (await moderationActions()).approve(actor, id),
  (id, outcome) =>
    outcome === "approved"
      ? `Approved comment ${id}: every reader sees it now.\n`
      : `Comment ${id} was already published.\n`,
  noComment,
);

export const commentsReject = ownerAction(
  commentId,
  async ({ moderationActions, actor }, id) => (await moderationActions()).reject(actor, id),
  (id) => `Rejected comment ${id}.\n`,
  noComment,
);

export const commentsSpam = ownerAction(
  commentId,
  async ({ moderationActions, actor }, id) => {
    const outcome = await (await moderationActions()).spam(actor, id);
    if (outcome === "owners_comment") throw new AdminError(ownersComment(id), exitCodes.failed);
    return outcome;
  },
  (id, outcome) =>
    outcome === "marked"
      ? `Marked comment ${id} as spam: readers no longer see it, and the filter learnt from it.\n`
      : `Comment ${id} was already marked as spam.\n`,
  noComment,
);
