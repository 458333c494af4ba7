import type { Selectable } from "kysely";
import type { Comment } from "../../contract/api.ts";
import type { LiveComment } from "../../contract/live-events.ts";
import type { CommentStatus, ScienceCommentsTable } from "../db/schema.ts";
import { toIso } from "../lib/time.ts";
import { renderComment } from "./markdown.ts";
import type { ThreadComment } from "./notifier.ts";
import { placeholderWriter } from "./removal.ts";

/*
 * A comment's row as the comment repositories read it, and the shapes they
 * answer with (server/comments/repository.ts).
 */

type CommentRow = Selectable<ScienceCommentsTable>;

export const columns = [
  "id",
  "post_id",
  "content",
  "user_name",
  "visitor_id",
  "created_at",
  "updated_at",
  "status",
  "by_owner",
  "content_html",
  "parent_id",
  "deleted_at",
] as const;

export type Row = Pick<CommentRow, (typeof columns)[number]>;

/** A comment the owner lists: as everyone would see it, and its status. */
export type OwnerComment = LiveComment & { status: CommentStatus };

export type CommentShapes = ReturnType<typeof commentShapes>;

/**
 * `avatarOf` turns a visitor credential into the seed of its avatar
 * (server/engagement/writer-keys.ts); the credential itself never leaves the server.
 */
export function commentShapes(avatarOf: (visitorId: string) => string) {
  function toLiveComment(row: Row): LiveComment {
    const deleted = row.deleted_at !== null;
    return {
      id: row.id,
      postId: row.post_id,
      content: row.content,
      html: deleted ? "" : (row.content_html ?? renderComment(row.content)),
      userName: row.user_name,
      avatar: avatarOf(row.visitor_id),
      createdAt: toIso(row.created_at),
      updatedAt: toIso(row.updated_at),
      byOwner: row.by_owner === 1,
      parentId: row.parent_id,
      deleted,
    };
  }

  /**
   * As its writer sees it. A comment the honeypot caught looks published to
   * its writer, and to nobody else (docs/decisions/010-moderation-and-spam.md).
   */
  function toComment(row: Row, visitorId: string | null): Comment {
    return {
      ...toLiveComment(row),
      mine: row.visitor_id === visitorId,
      awaitingApproval: row.status === "pending",
    };
  }

  return {
    toLiveComment,
    toComment,

    /**
     * As `visitorId` sees it in a post's list: a thread's first comment that
     * waits for the owner again (held by an edit, or then kept as spam) keeps
     * only its place for everyone but its writer, so its published replies
     * still read (docs/product.md, "Replies").
     */
    seenComment(row: Row, visitorId: string | null): Comment {
      if (row.status === "published" || row.visitor_id === visitorId) {
        return toComment(row, visitorId);
      }
      const place = toComment(
        {
          ...row,
          content: "",
          content_html: "",
          user_name: "",
          visitor_id: placeholderWriter,
          by_owner: 0,
          deleted_at: row.updated_at,
        },
        visitorId,
      );
      return { ...place, held: true };
    },

    toOwnerComment: (row: Row): OwnerComment => ({ ...toLiveComment(row), status: row.status }),

    threadComment: (row: Row): ThreadComment => ({
      id: row.id,
      postId: row.post_id,
      parentId: row.parent_id,
      visitorId: row.visitor_id,
    }),
  };
}
