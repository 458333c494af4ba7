import { createHash } from "node:crypto";
import type { Selectable } from "kysely";
import { limits } from "../../contract/limits.ts";
import { forgetApproval } from "../comments/publishing.ts";
import { forgetRemoteWriters } from "../comments/removal.ts";
import { remoteVisitorPrefix } from "../comments/rows.ts";
import { beforePlace, type ListPage, type PageRequest, pageOf } from "../db/list-pages.ts";
import type { Database } from "../db/schema.ts";
import type { Store } from "../db/store.ts";
import { dayMs, nowIso, toIso } from "../lib/time.ts";
import { createBlockRecords } from "./blocks.ts";
import { createSentRecords } from "./sent-records.ts";

/*
 * The Fediverse's own tables: followers, blocks (blocks.ts), replies that became
 * comments, likes and boosts, and what was published (sent-records.ts). Comments themselves, and
 * the record of the Note each reply was, are written only through the
 * comments' repository (server/comments/), in the comment's transaction.
 */

export type Follower = {
  actorId: string;
  handle: string;
  name: string | null;
  inbox: string;
  sharedInbox: string | null;
  /** The Follow activity's id, which a Reject names. */
  followId: string;
  followedAt: string;
};

export type FediverseRepository = ReturnType<typeof createFediverseRepository>;

/** How long the record of a queue message given up is kept. */
const givenUpKeptDays = 30;

/** A Fediverse writer's stand-in for a visitor credential: never shown, unique per account. */
export const visitorOfActor = (actorId: string) =>
  `${remoteVisitorPrefix}${createHash("sha256").update(actorId).digest("hex").slice(0, 32)}`;

type FollowerRow = Selectable<Database["fediverse_followers"]>;
const asFollower = ({ actor_id, shared_inbox, follow_id, created_at, ...row }: FollowerRow) => ({
  ...row,
  actorId: actor_id,
  sharedInbox: shared_inbox,
  followId: follow_id,
  followedAt: new Date(created_at).toISOString(),
});

export function createFediverseRepository(store: Store) {
  const { db } = store;
  return {
    ...createSentRecords(store),
    ...createBlockRecords(store),

    async follow(follower: Omit<Follower, "followedAt">) {
      const row = {
        handle: follower.handle,
        name: follower.name,
        inbox: follower.inbox,
        shared_inbox: follower.sharedInbox,
        follow_id: follower.followId,
      };
      await db
        .insertInto("fediverse_followers")
        .values({ actor_id: follower.actorId, ...row, created_at: nowIso() })
        .onConflict((conflict) => conflict.column("actor_id").doUpdateSet(row))
        .execute();
    },

    /** A follower's handle and name as their server now gives them; nothing for others. */
    async renameFollower(actorId: string, { handle, name }: { handle: string; name: string }) {
      await db
        .updateTable("fediverse_followers")
        .set({ handle, name: name || null })
        .where("actor_id", "=", actorId)
        .execute();
    },

    /** Removes a follower; with `followId`, only if that Follow is the one recorded. */
    async unfollow(actorId: string, followId?: string, within = db): Promise<boolean> {
      let query = within.deleteFrom("fediverse_followers").where("actor_id", "=", actorId);
      if (followId !== undefined) query = query.where("follow_id", "=", followId);
      const result = await query.executeTakeFirst();
      return Number(result.numDeletedRows) > 0;
    },

    /** The followers' own inboxes, by account (those of `actorIds` that follow). */
    async inboxesOf(actorIds: string[]): Promise<Map<string, string>> {
      if (actorIds.length === 0) return new Map();
      const rows = await db
        .selectFrom("fediverse_followers")
        .select(["actor_id", "inbox"])
        .where("actor_id", "in", actorIds)
        .execute();
      return new Map(rows.map((row) => [row.actor_id, row.inbox]));
    },

    /** Every follower, in no order: whom an item goes to. */
    followers: async (within = db): Promise<Follower[]> =>
      (await within.selectFrom("fediverse_followers").selectAll().execute()).map(asFollower),

    /** A page of the followers, newest first, for the owner (server/db/list-pages.ts). */
    async followersPage({ after, limit }: PageRequest): Promise<ListPage<Follower>> {
      let query = db.selectFrom("fediverse_followers").selectAll();
      if (after) query = query.where(beforePlace("created_at", "actor_id", after));
      const rows = await query
        .orderBy("created_at", "desc")
        .orderBy("actor_id", "desc")
        .limit(limit + 1)
        .execute();
      return pageOf(rows.map(asFollower), limit, (f) => ({ at: f.followedAt, key: f.actorId }));
    },

    async followerCount(): Promise<number> {
      const row = await db
        .selectFrom("fediverse_followers")
        .select((eb) => eb.fn.countAll().as("count"))
        .executeTakeFirstOrThrow();
      return Number(row.count);
    },

    /**
     * Queue messages given up (message-queue.ts) in the last `givenUpKeptDays`:
     * how many, and the latest `limits.givenUpShown` of them, newest first.
     */
    async givenUp(now = new Date()) {
      const since = new Date(now.getTime() - givenUpKeptDays * dayMs).toISOString();
      const rows = await db
        .selectFrom("fediverse_given_up")
        .select(["id", "kind", "activity", "why", "given_up_at"])
        .select((eb) => eb.fn.countAll().over().as("total"))
        .where("given_up_at", ">=", since)
        .orderBy("given_up_at", "desc")
        .orderBy("id", "desc")
        .limit(limits.givenUpShown)
        .execute();
      return {
        total: Number(rows[0]?.total ?? 0),
        latest: rows.map(({ given_up_at, total: _total, ...row }) => ({
          ...row,
          at: toIso(given_up_at),
        })),
      };
    },

    /** Deletes the records of messages given up more than `givenUpKeptDays` ago, in `within`; how many went. */
    async pruneGivenUp(now = new Date(), within = db): Promise<number> {
      const before = new Date(now.getTime() - givenUpKeptDays * dayMs).toISOString();
      const result = await within
        .deleteFrom("fediverse_given_up")
        .where("given_up_at", "<", before)
        .executeTakeFirst();
      return Number(result.numDeletedRows);
    },

    async replyByNote(noteId: string) {
      return db
        .selectFrom("fediverse_replies")
        .selectAll()
        .where("note_id", "=", noteId)
        .executeTakeFirst();
    },

    /**
     * The picture kept of a Fediverse comment's writer, while the comment is
     * shown to everyone: a held or deleted comment's writer shows nowhere.
     */
    async shownAvatar(commentId: number): Promise<string | null> {
      const row = await db
        .selectFrom("fediverse_replies as reply")
        .innerJoin("science_comments as comment", "comment.id", "reply.comment_id")
        .select("reply.avatar")
        .where("reply.comment_id", "=", commentId)
        .where("comment.status", "=", "published")
        .where("comment.deleted_at", "is", null)
        .executeTakeFirst();
      return row?.avatar ?? null;
    },

    async repliesByActor(actorId: string) {
      return db
        .selectFrom("fediverse_replies")
        .selectAll()
        .where("actor_id", "=", actorId)
        .execute();
    },

    /**
     * The Fediverse reply the owner's comment answers: the latest comment
     * from the Fediverse in its thread (the thread's first included) before it
     * that readers see. One held for the owner, kept as spam or deleted is not
     * answered: the public Note would name its writer and post.
     */
    async answeredBy(ownerComment: { id: number; parentId: number }) {
      return db
        .selectFrom("fediverse_replies as reply")
        .innerJoin("science_comments as comment", "comment.id", "reply.comment_id")
        .selectAll("reply")
        .where((eb) =>
          eb.or([
            eb("comment.id", "=", ownerComment.parentId),
            eb("comment.parent_id", "=", ownerComment.parentId),
          ]),
        )
        .where("comment.id", "<", ownerComment.id)
        .where("comment.status", "=", "published")
        .where("comment.deleted_at", "is", null)
        .orderBy("comment.id", "desc")
        .limit(1)
        .executeTakeFirst();
    },

    async forgetReply(commentId: number) {
      await forgetRemoteWriters(db, [commentId]);
    },

    async react(reaction: {
      activityId: string;
      kind: "like" | "announce";
      path: string;
      actorId: string;
    }): Promise<boolean> {
      // One like and one boost of an item per account, as on its server: each new
      // activity id is the sender's to choose, and each would have counted again.
      const already = await db
        .selectFrom("fediverse_reactions")
        .select("activity_id")
        .where("actor_id", "=", reaction.actorId)
        .where("kind", "=", reaction.kind)
        .where("path", "=", reaction.path)
        .executeTakeFirst();
      if (already) return false;
      const result = await db
        .insertInto("fediverse_reactions")
        .values({
          activity_id: reaction.activityId,
          kind: reaction.kind,
          path: reaction.path,
          actor_id: reaction.actorId,
          created_at: nowIso(),
        })
        .onConflict((conflict) => conflict.column("activity_id").doNothing())
        .returning("activity_id")
        .executeTakeFirst();
      return result !== undefined;
    },

    /**
     * Takes back an account's like or boost: the one of that id, and, as its
     * server counts one an account, the account's of the same kind of `path`
     * (kept under another id the account sent it with).
     */
    async unreact(reaction: {
      activityId: string;
      kind: "like" | "announce";
      path: string | null;
      actorId: string;
    }): Promise<boolean> {
      const { path } = reaction;
      const result = await db
        .deleteFrom("fediverse_reactions")
        .where("actor_id", "=", reaction.actorId)
        .where((eb) =>
          path === null
            ? eb("activity_id", "=", reaction.activityId)
            : eb.or([
                eb("activity_id", "=", reaction.activityId),
                eb.and([eb("kind", "=", reaction.kind), eb("path", "=", path)]),
              ]),
        )
        .executeTakeFirst();
      return Number(result.numDeletedRows) > 0;
    },

    async reactionCounts(path: string): Promise<{ likes: number; boosts: number }> {
      const rows = await db
        .selectFrom("fediverse_reactions")
        // Accounts, not rows: two likes an account's server sent at once are both kept.
        .select(["kind", (eb) => eb.fn.count("actor_id").distinct().as("count")])
        .where("path", "=", path)
        .groupBy("kind")
        .execute();
      const count = (kind: string) => Number(rows.find((row) => row.kind === kind)?.count ?? 0);
      return { likes: count("like"), boosts: count("announce") };
    },

    /** The handles an account went by here (as a follower or a reply's writer). */
    async handlesOf(actorId: string): Promise<string[]> {
      const rows = await db
        .selectFrom("fediverse_followers")
        .select("handle")
        .where("actor_id", "=", actorId)
        .union(db.selectFrom("fediverse_replies").select("handle").where("actor_id", "=", actorId))
        .execute();
      return rows.map((row) => row.handle);
    },

    /**
     * The writer ids an account's comments are kept under: the one made
     * from its address, and any other its replies' comments carry (one
     * brought in by an import, say).
     */
    async writersOf(actorId: string): Promise<string[]> {
      const rows = await db
        .selectFrom("science_comments")
        .select("visitor_id")
        .where(
          "id",
          "in",
          db.selectFrom("fediverse_replies").select("comment_id").where("actor_id", "=", actorId),
        )
        .execute();
      return [...new Set([visitorOfActor(actorId), ...rows.map((row) => row.visitor_id)])].filter(
        (visitorId) => visitorId.startsWith(remoteVisitorPrefix),
      );
    },

    /** The account that wrote a comment from the Fediverse, or null. */
    async actorOfComment(commentId: number): Promise<string | null> {
      const row = await db
        .selectFrom("fediverse_replies")
        .select("actor_id")
        .where("comment_id", "=", commentId)
        .executeTakeFirst();
      return row?.actor_id ?? null;
    },

    /**
     * Everything of one actor: their follow, likes and boosts, and the
     * owner's approval of them as a writer (their replies go as comments);
     * the owner's replies sent to them become tombstones that name nobody.
     * Called before their comments go, which takes the record of their posts.
     * Returns how many likes and boosts went, the items they were of, and the
     * replies (their comments' ids) that were live until now.
     */
    async forgetActor(
      actorId: string,
    ): Promise<{ reactions: number; paths: string[]; answers: number[] }> {
      return db.transaction().execute(async (trx) => {
        await trx.deleteFrom("fediverse_followers").where("actor_id", "=", actorId).execute();
        const answers = await trx
          .selectFrom("fediverse_published")
          .select(["path", "digest"])
          .where("path", "like", "/notes/%")
          .where("digest", "!=", "")
          .execute();
        const posts = new Set(
          (
            await trx
              .selectFrom("fediverse_replies")
              .select("note_id")
              .where("actor_id", "=", actorId)
              .execute()
          ).map((row) => row.note_id),
        );
        const theirs = answers
          .filter(({ digest }) => {
            // Recorded before writers were, a reply names the answered Note alone: theirs
            // if it is a post of theirs here (wherever their server keeps posts), or, gone
            // before, one under their address.
            const [answered = "", writer] = digest.split(" ");
            if (writer !== undefined) return writer === actorId;
            return posts.has(answered) || answered.startsWith(`${actorId}/`);
          })
          .map((row) => row.path);
        let live: { path: string }[] = [];
        if (theirs.length > 0) {
          const now = nowIso();
          const erased = trx.updateTable("fediverse_published").where("path", "in", theirs);
          await erased.set({ digest: "", updated_at: now }).execute();
          live = await erased
            .set({ deleted_at: now })
            .where("deleted_at", "is", null)
            .returning("path")
            .execute();
        }
        const reactions = await trx
          .deleteFrom("fediverse_reactions")
          .where("actor_id", "=", actorId)
          .returning("path")
          .execute();
        await forgetApproval(trx, visitorOfActor(actorId));
        return {
          reactions: reactions.length,
          paths: [...new Set(reactions.map((row) => row.path))],
          answers: live.map((row) => Number(row.path.split("/")[2])),
        };
      });
    },
  };
}
