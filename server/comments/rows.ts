import { type Kysely, type Selectable, sql, type Transaction } from "kysely";
import type { Comment, RemoteWriter } from "../../contract/api.ts";
import { type LiveComment, topicOf } from "../../contract/live-events.ts";
import type { CommentStatus, Database, ScienceCommentsTable } from "../db/schema.ts";
import { type EventJournal, ownRecording, type Recording } from "../events/journal.ts";
import { toIso } from "../lib/time.ts";
import { renderComment } from "./markdown.ts";

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

/** Who a comment's place belongs to once its writer deleted it: nobody. */
const placeholderWriter = "deleted";

/** A comment's place, emptied of it: no text, no writer (deleted with replies, or held). */
export const emptiedPlace = {
  content: "",
  content_html: "",
  user_name: "",
  visitor_id: placeholderWriter,
  ip_hash: null,
  by_owner: 0,
} as const;

/**
 * The visitor ids of comments that came from the Fediverse start so
 * (server/fediverse/inbox.ts makes them from the writer's account).
 */
export const remoteVisitorPrefix = "fediverse:";

/** Where the site serves the copy it keeps of a Fediverse writer's picture (server/fediverse/routes.ts). */
const remoteAvatarPath = (commentId: number) => `/fediverse/avatars/${commentId}`;

/** A reply from the Fediverse as it arrived: the Note it was and its writer (`fediverse_replies`). */
export type RemoteReply = {
  noteId: string;
  actorId: string;
  handle: string;
  name: string;
  url: string;
  /** The picture's bytes as `type;base64,…`, served from this site. */
  avatar: string | null;
};

/** The Fediverse writers of some comments, by comment id. */
type RemoteWriters = ReadonlyMap<number, RemoteWriter>;

const webAddress = (address: string) =>
  /^https?:$/.test(URL.parse(address)?.protocol ?? "") && address.length <= 2000;

/**
 * Who wrote those of `rows` that came from the Fediverse, as their server
 * shows them (the table `fediverse_replies`, written with the comment and
 * removed with it, removal.ts). No query when none did, as on most posts.
 */
export async function remoteWritersOf(
  db: Kysely<Database>,
  rows: readonly Pick<Row, "id" | "visitor_id">[],
): Promise<RemoteWriters> {
  const ids = rows
    .filter((row) => row.visitor_id.startsWith(remoteVisitorPrefix))
    .map((row) => row.id);
  if (ids.length === 0) return new Map();
  const found = await db
    .selectFrom("fediverse_replies")
    .select([
      "comment_id",
      "handle",
      "url",
      "note_id",
      sql<number>`case when avatar is null then 0 else 1 end`.as("pictured"),
    ])
    .where("comment_id", "in", ids)
    .execute();
  return new Map(
    found.map((row) => {
      const link = [row.url, row.note_id].find(webAddress);
      return [
        row.comment_id,
        {
          handle: row.handle,
          ...(link ? { url: link } : {}),
          ...(Number(row.pictured) === 1 ? { avatar: remoteAvatarPath(row.comment_id) } : {}),
        },
      ];
    }),
  );
}

/** A comment the owner lists: as everyone would see it, and its status. */
export type OwnerComment = LiveComment & { status: CommentStatus };

export type CommentShapes = ReturnType<typeof commentShapes>;

/**
 * `avatarOf` turns a visitor credential into the seed of its avatar
 * (server/engagement/writer-keys.ts); the credential itself never leaves the server.
 */
export function commentShapes(avatarOf: (visitorId: string) => string) {
  /** `remote`: its Fediverse writer, when it came from there (`remoteWritersOf`). */
  function toLiveComment(row: Row, remote?: RemoteWriters): LiveComment {
    const deleted = row.deleted_at !== null;
    const writer = deleted ? undefined : remote?.get(row.id);
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
      ...(writer ? { remote: writer } : {}),
    };
  }

  /**
   * As its writer sees it. A comment the honeypot caught looks published to
   * its writer, and to nobody else (docs/decisions/010-moderation-and-spam.md).
   */
  function toComment(row: Row, visitorId: string | null, remote?: RemoteWriters): Comment {
    return {
      ...toLiveComment(row, remote),
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
    seenComment(row: Row, visitorId: string | null, remote?: RemoteWriters): Comment {
      if (row.status === "published" || row.visitor_id === visitorId) {
        return toComment(row, visitorId, remote);
      }
      const place = toComment({ ...row, ...emptiedPlace, deleted_at: row.updated_at }, visitorId);
      return { ...place, held: true };
    },

    toOwnerComment: (row: Row, remote?: RemoteWriters): OwnerComment => ({
      ...toLiveComment(row, remote),
      status: row.status,
    }),
  };
}

/**
 * The live-event topic of comments waiting for the owner, for the console: it
 * names no item, so no reader's stream can ask for it
 * (docs/decisions/010-moderation-and-spam.md).
 */
export const ownerModerationTopic = "owner:moderation";

/** A comment's live events, recorded in the transaction that changes it. */
export function commentEvents(
  events: EventJournal,
  { toLiveComment }: Pick<ReturnType<typeof commentShapes>, "toLiveComment">,
) {
  const itemOf = (postId: string) => ({ kind: "science" as const, id: postId });
  const postTopic = (postId: string) => topicOf("science", postId);
  /** `row` shown as it now is (`added`, `updated`), with `remote`, its Fediverse writer. */
  const showing = (row: Row, action: "added" | "updated", remote?: RemoteWriters) => ({
    action,
    item: itemOf(row.post_id),
    commentId: row.id,
    comment: toLiveComment(row, remote),
  });
  const gone = (postId: string, commentId: number, action: "held" | "deleted") => ({
    action,
    item: itemOf(postId),
    commentId,
  });
  /**
   * Records that `row` is now shown as it is (`added`, `updated`) on its post's
   * open pages, with its Fediverse writer when it has one.
   */
  const shown = (trx: Transaction<Database>, row: Row, action: "added" | "updated") =>
    events.record(trx, postTopic(row.post_id), "comment", async () =>
      showing(row, action, await remoteWritersOf(trx, [row])),
    );
  /** Records that a comment is held, on its post's topic or the owner's. */
  const held = (trx: Transaction<Database>, topic: string, postId: string, commentId: number) =>
    events.record(trx, topic, "comment", async () => gone(postId, commentId, "held"));
  const deletedFrom = (topic: string, { id, post_id }: Pick<Row, "id" | "post_id">): Recording => ({
    topic,
    type: "comment",
    value: gone(post_id, id, "deleted"),
  });

  /**
   * Records, in their order and in a few statements, what a removal did
   * (removal.ts): places kept (shown emptied; no Fediverse writer left), comments
   * deleted, and comments only their writer saw deleted by them (`unseen`).
   */
  const removed = (trx: Transaction<Database>, changes: readonly Removal[]) =>
    events.recordAll(
      trx,
      changes.flatMap((change): Recording[] => {
        if ("place" in change) {
          const { place } = change;
          return [
            { topic: postTopic(place.post_id), type: "comment", value: showing(place, "updated") },
          ];
        }
        const { row } = change;
        // Only its writer saw it: every instance forgets what its writer owns of
        // the post, and the owner's console hears of it; the post's pages never had it.
        if (change.unseen)
          return [ownRecording(postTopic(row.post_id)), deletedFrom(ownerModerationTopic, row)];
        return [deletedFrom(postTopic(row.post_id), row)];
      }),
    );

  return { shown, held, removed };
}

/** What a removal did to one comment: kept its place, or deleted it (`unseen`: seen only by its writer, who deleted it). */
export type Removal = { place: Row } | { row: Pick<Row, "id" | "post_id">; unseen: boolean };

export type CommentEvents = ReturnType<typeof commentEvents>;
