import type { BanScope } from "../../contract/console.ts";
import type { Alongside, CommentsRepository, OwnerComment } from "../comments/repository.ts";
import type { Config } from "../config.ts";
import { withLine } from "../db/owner-actor.ts";
import type { Store } from "../db/store.ts";
import { dayMs, nowIso, toIso } from "../lib/time.ts";
import type { ExampleSource, SpamStore } from "./spam/store.ts";

/**
 * The owner's moderation (docs/decisions/010-moderation-and-spam.md), for
 * every way the owner acts: the command line, and whatever else calls these.
 * Each function works on SQLite and PostgreSQL while the site runs; what it
 * changes reaches open pages through the events journal, as the API's writes do.
 */

type ModerationMode = Config["MODERATION"];

/** A ban as the owner lists it. */
type Ban = {
  id: number;
  /** The comment whose writer was banned, if it still exists when listed. */
  commentId: number | null;
  createdAt: string;
  /** Null: until lifted. */
  expiresAt: string | null;
  /** Whether it names the writer's address too (comments older than bans do not carry one). */
  coversAddress: boolean;
};

type ApproveOutcome = "approved" | "already_published" | "not_found";
type RejectOutcome = "rejected" | "not_found";
type MarkSpamOutcome = "marked" | "already_spam" | "not_found";

export function createModeration({
  store,
  comments,
  mode,
  spam,
}: {
  store: Store;
  comments: CommentsRepository;
  mode: ModerationMode;
  /** Where the owner's decisions go as the spam filter's training examples. */
  spam: SpamStore;
}) {
  const { db } = store;

  /** The owner's decision on a comment, kept for the spam filter (docs/decisions/025-spam-that-learns.md). */
  async function teach(comment: OwnerComment | null, source: ExampleSource) {
    if (!comment) return;
    await spam.addExample({
      commentId: comment.id,
      label: source === "approve" || source === "publish" ? "ham" : "spam",
      source,
      content: comment.content,
    });
  }

  /** Bans in force now, optionally only those naming this credential or address. */
  function activeBans() {
    const now = nowIso();
    return db
      .selectFrom("bans")
      .where("lifted_at", "is", null)
      .where((eb) => eb.or([eb("expires_at", "is", null), eb("expires_at", ">", now)]));
  }

  return {
    mode,

    /**
     * Publishes a held comment to everyone, live, and approves its writer
     * (MODERATION=first then publishes their later comments at once).
     */
    async approveComment(id: number, alongside?: Alongside): Promise<ApproveOutcome> {
      const comment = await comments.getForOwner(id);
      const outcome = await comments.approve(id, alongside);
      // From the spam list, the owner overrules the filter: `admin spam stats` tells the two apart.
      if (outcome === "approved") {
        await teach(comment, comment?.status === "spam" ? "publish" : "approve");
      }
      return outcome;
    },

    /**
     * Marks a comment as spam: hidden from everyone but its writer, and an
     * example of junk the spam filter learns from at once, on every instance.
     */
    async markSpam(id: number, alongside?: Alongside): Promise<MarkSpamOutcome> {
      const comment = await comments.getForOwner(id);
      const outcome = await comments.markSpam(id, alongside);
      // What the filter had already stored as spam, the owner confirms: it teaches as much.
      if (outcome === "marked" || (outcome === "already_spam" && !(await spam.taught(id)))) {
        await teach(comment, "spam");
      }
      return outcome;
    },

    /**
     * Removes a comment whatever its state: a held one disappears for its
     * writer too, a published one from every open page. The filter learns
     * nothing from it: rejected is deleted, and a deleted comment's words go
     * (docs/decisions/025-spam-that-learns.md); "Mark as spam" teaches.
     */
    async rejectComment(id: number, alongside?: Alongside): Promise<RejectOutcome> {
      return (await comments.removeAsOwner(id, alongside)) ? "rejected" : "not_found";
    },

    /**
     * Refuses the visitor who wrote comment `id` every comment, edit and
     * reaction, for `days` days or until lifted: their browser's credential,
     * and with the scope "address" also every browser at the address the
     * comment came from ("no_address" when the comment is older than bans and
     * names none). Their comments stay; `visitor purge` removes them.
     * `alongside` writes in the ban's transaction (the owner's audit line).
     */
    async banVisitorOfComment(
      id: number,
      { days, scope }: { days?: number | undefined; scope: BanScope },
      alongside?: Alongside,
    ): Promise<{ ban: Ban } | "not_found" | "no_address"> {
      const writer = await comments.writerOf(id);
      if (!writer) return "not_found";
      const ipHash = scope === "address" ? writer.ipHash : null;
      if (scope === "address" && ipHash === null) return "no_address";
      const now = new Date();
      const expiresAt = days === undefined ? null : new Date(now.getTime() + days * dayMs);
      const row = await withLine(db, alongside, async (trx) => {
        const row = await trx
          .insertInto("bans")
          .values({
            visitor_id: writer.visitorId,
            ip_hash: ipHash,
            comment_id: id,
            created_at: now.toISOString(),
            expires_at: expiresAt ? expiresAt.toISOString() : null,
          })
          .returning("id")
          .executeTakeFirstOrThrow();
        await alongside?.(trx);
        return row;
      });
      await teach(await comments.getForOwner(id), "ban");
      return {
        ban: {
          id: row.id,
          commentId: id,
          createdAt: now.toISOString(),
          expiresAt: expiresAt ? expiresAt.toISOString() : null,
          coversAddress: ipHash !== null,
        },
      };
    },

    /**
     * Lifts bans: the one with this id, or every ban in force on the writer
     * of comment `commentId` (their credential or address). Returns how many;
     * `alongside` writes in the same transaction when any was lifted.
     */
    async unban(
      target: { banId: number } | { commentId: number },
      alongside?: Alongside,
    ): Promise<number> {
      let ids: number[];
      if ("banId" in target) {
        ids = [target.banId];
      } else {
        const writer = await comments.writerOf(target.commentId);
        const rows = await activeBans()
          .select("id")
          .where((eb) =>
            eb.or([
              eb("comment_id", "=", target.commentId),
              ...(writer ? [eb("visitor_id", "=", writer.visitorId)] : []),
              ...(writer?.ipHash ? [eb("ip_hash", "=", writer.ipHash)] : []),
            ]),
          )
          .execute();
        ids = rows.map((row) => row.id);
      }
      if (ids.length === 0) return 0;
      return withLine(db, alongside, async (trx) => {
        const lifted = await trx
          .updateTable("bans")
          .set({ lifted_at: nowIso() })
          .where("id", "in", ids)
          .where("lifted_at", "is", null)
          .returning("id")
          .execute();
        if (lifted.length > 0) await alongside?.(trx);
        return lifted.length;
      });
    },

    /**
     * Forgets the bans that have lapsed or been lifted: each names a browser,
     * and perhaps a connection, and nothing reads it again. How many.
     */
    async pruneBans(): Promise<number> {
      const result = await db
        .deleteFrom("bans")
        .where((eb) => eb.or([eb("lifted_at", "is not", null), eb("expires_at", "<=", nowIso())]))
        .executeTakeFirst();
      return Number(result.numDeletedRows);
    },

    /** Bans in force, oldest first. */
    async listBans(): Promise<Ban[]> {
      const rows = await activeBans()
        .select(["id", "comment_id", "created_at", "expires_at", "ip_hash"])
        .orderBy("id")
        .execute();
      return rows.map((row) => ({
        id: row.id,
        commentId: row.comment_id,
        createdAt: toIso(row.created_at),
        expiresAt: row.expires_at === null ? null : toIso(row.expires_at),
        coversAddress: row.ip_hash !== null,
      }));
    },

    /** Whether a ban in force names this credential or this address. */
    async isBanned(writer: { visitorId: string | null; ipHash: string }): Promise<boolean> {
      const row = await activeBans()
        .select("id")
        .where((eb) =>
          eb.or([
            eb("ip_hash", "=", writer.ipHash),
            ...(writer.visitorId ? [eb("visitor_id", "=", writer.visitorId)] : []),
          ]),
        )
        .limit(1)
        .executeTakeFirst();
      return row !== undefined;
    },

    /** Whether a new comment of this visitor is published at once or waits for the owner. */
    async statusForNewComment(visitorId: string | null): Promise<"published" | "pending"> {
      if (mode === "off") return "published";
      if (mode === "all" || visitorId === null) return "pending";
      return (await comments.isApproved(visitorId)) ? "published" : "pending";
    },
  };
}

export type Moderation = ReturnType<typeof createModeration>;
