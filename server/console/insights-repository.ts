import { type RawBuilder, sql } from "kysely";
import type {
  CommentStatusFilter,
  ConsoleComment,
  ConsoleSubscriber,
  OverviewResponse,
} from "../../contract/console.ts";
import type { ListPlace } from "../../contract/list-pages.ts";
import { dateKey, widestOffsetMs } from "../../contract/time-zones.ts";
import { remoteWritersOf } from "../comments/rows.ts";
import { containsText, type Store } from "../db/store.ts";
import { ownerVisitorId } from "../engagement/visitor.ts";
import { keptDomain, readableAddress } from "../lib/mailbox.ts";
import { toIso } from "../lib/time.ts";
import { subscriberSuppressed } from "../outbox/suppressions.ts";
import { lastDays, ownerDates, quarterOfIso } from "./owner-days.ts";
import type { Clock } from "./owner-repository.ts";
import type { ItemTitles } from "./titles.ts";

/** A comment readers see, the only kind the charts count. */
const publishedComment = sql<boolean>`status = 'published' and deleted_at is null`;

/** How far back the overview's charts reach. */
const overviewDays = 90;

/** The start of a comment, on one line, as the console quotes what a reply answers. */
const excerptOf = (text: string) => {
  const line = text.replace(/\s+/g, " ").trim();
  return line.length > 80 ? `${line.slice(0, 79)}…` : line;
};

export type InsightsRepository = ReturnType<typeof createInsightsRepository>;

/**
 * The console's reads across the engagement data: charts, searches, backlog.
 * Reads only; writes go through the engagement repositories, which record
 * the live events readers' pages need.
 */
export function createInsightsRepository(
  store: Store,
  titles: ItemTitles,
  now: Clock,
  /** The owner's zone (their Bookings hours'), whose midnights the charts' days run from. */
  ownerZone: () => Promise<string> = async () => "UTC",
) {
  const { db } = store;
  // The quarter hour (UTC) of a timestamp column, the same text on both databases.
  const quarterOf = (column: string): RawBuilder<string> => {
    const at = sql.ref(column);
    return store.kind === "sqlite"
      ? sql<string>`substr(${at}, 1, 14) || (cast(substr(${at}, 15, 2) as integer) / 15)`
      : sql<string>`to_char(${at} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:') || (extract(minute from ${at} at time zone 'UTC')::int / 15)`;
  };

  /** The rows of `table` since `since`, counted by the owner's date (`dateOf` a quarter hour). */
  async function perDay(
    table: "science_comments" | "science_reactions" | "mythology_reactions",
    since: string,
    dateOf: (quarter: string) => string,
  ): Promise<Map<string, number>> {
    const quarter = quarterOf("created_at");
    let query = db
      .selectFrom(table)
      .select([quarter.as("quarter"), (eb) => eb.fn.countAll().as("count")])
      .where("created_at", ">=", since);
    // Comments as readers see them, as `stats` counts them: not held, spam or deleted.
    if (table === "science_comments") query = query.where(publishedComment);
    const perDate = new Map<string, number>();
    for (const row of await query.groupBy(quarter).execute()) {
      const date = dateOf(row.quarter);
      perDate.set(date, (perDate.get(date) ?? 0) + Number(row.count));
    }
    return perDate;
  }

  return {
    posts: () => titles.list("science"),

    /** The charts by the owner's days, from midnight in their zone (as the Readers screen's). */
    async overview(): Promise<Omit<OverviewResponse, "editions" | "moderation">> {
      const zone = await ownerZone();
      const dateOf = ownerDates(zone);
      const days = lastDays(dateKey(now(), zone), overviewDays);
      // The first day's midnight there comes at most the widest offset before UTC's.
      const since = new Date(Date.parse(`${days[0]}T00:00:00Z`) - widestOffsetMs).toISOString();
      const [comments, science, mythology] = await Promise.all([
        perDay("science_comments", since, dateOf),
        perDay("science_reactions", since, dateOf),
        perDay("mythology_reactions", since, dateOf),
      ]);
      const activity = days.map((day) => ({
        day,
        comments: comments.get(day) ?? 0,
        reactions: (science.get(day) ?? 0) + (mythology.get(day) ?? 0),
      }));

      // Subscribers on each day's evening: those who had asked by then, and
      // of them those who had confirmed. Removed addresses are gone from the
      // table, so the past shows today's list as it grew. An address kept
      // from before double opt-in is confirmed without a time: since it came.
      const subscriberRows = await db
        .selectFrom("subscribers")
        .select(["status", "created_at", "confirmed_at"])
        .execute();
      const dayOfRow = (at: Date | string) => dateOf(quarterOfIso(toIso(at)));
      const asked = subscriberRows.map((row) => dayOfRow(row.created_at)).sort();
      const confirmedDays = subscriberRows
        .flatMap((row) =>
          row.status === "confirmed" ? [dayOfRow(row.confirmed_at ?? row.created_at)] : [],
        )
        .sort();
      const countUpTo = (sorted: string[], day: string) => {
        let low = 0;
        let high = sorted.length;
        while (low < high) {
          const middle = (low + high) >> 1;
          if ((sorted[middle] ?? "") <= day) low = middle + 1;
          else high = middle;
        }
        return low;
      };
      const subscribers = days.map((day) => {
        const confirmed = countUpTo(confirmedDays, day);
        return { day, confirmed, pending: countUpTo(asked, day) - confirmed };
      });

      const engagement = new Map<
        string,
        { kind: "mythology" | "science"; id: string; reactions: number; comments: number }
      >();
      const entry = (kind: "mythology" | "science", id: string) => {
        const key = `${kind}:${id}`;
        let found = engagement.get(key);
        if (!found) {
          found = { kind, id, reactions: 0, comments: 0 };
          engagement.set(key, found);
        }
        return found;
      };
      for (const [table, kind, column] of [
        ["mythology_reactions", "mythology", "story_id"],
        ["science_reactions", "science", "post_id"],
      ] as const) {
        const rows = await db
          .selectFrom(table)
          .select([sql<string>`${sql.ref(column)}`.as("item"), (eb) => eb.fn.countAll().as("n")])
          .groupBy(column)
          .execute();
        for (const row of rows) entry(kind, row.item).reactions += Number(row.n);
      }
      const commentRows = await db
        .selectFrom("science_comments")
        .select(["post_id", (eb) => eb.fn.countAll().as("n")])
        .where(publishedComment)
        .groupBy("post_id")
        .execute();
      for (const row of commentRows) entry("science", row.post_id).comments += Number(row.n);
      const mostEngaged = [...engagement.values()]
        .sort(
          (a, b) =>
            b.reactions + b.comments - (a.reactions + a.comments) || a.id.localeCompare(b.id),
        )
        .slice(0, 8)
        .map((item) => ({ ...item, title: titles.of(item.kind, item.id) }));
      return { zone, activity, subscribers, mostEngaged };
    },

    /**
     * Comments, newest first (the held queue oldest first), whose text or name
     * contains `q`, of one post or all, in one state or, with `status` absent,
     * in any state but held: the console lists the held ones apart, once.
     */
    async searchComments(filter: {
      q?: string | undefined;
      post?: string | undefined;
      status?: CommentStatusFilter | undefined;
      limit: number;
      /** The place of the last comment of the page before, newest first. */
      after?: ListPlace | undefined;
    }): Promise<ConsoleComment[]> {
      let query = db
        .selectFrom("science_comments")
        .select([
          "id",
          "post_id",
          "content",
          "user_name",
          "created_at",
          "updated_at",
          "status",
          "parent_id",
          "visitor_id",
        ])
        // The place a deleted comment keeps for its replies is nobody's words.
        .where("deleted_at", "is", null);
      // A page of a tab without sorting its status's comments: the held and spam
      // tabs read the index of the comments not published, which a query names
      // as its condition, in so many words, to use it (migration 043); the
      // published, nearly every comment, walk the newest of all, as the recent
      // list does, since SQLite would read them all by status and sort them.
      if (filter.status === "published") {
        query = query.where("status", "not in", ["pending", "spam"]);
      } else if (filter.status) {
        query = query
          .where("status", "=", filter.status)
          .where("status", "!=", sql.lit("published"));
      } else {
        query = query.where("status", "!=", "pending");
      }
      const q = filter.q?.trim();
      if (q) {
        query = query.where((eb) =>
          eb.or([
            eb(containsText("content", q), "=", true),
            eb(containsText("user_name", q), "=", true),
          ]),
        );
      }
      if (filter.post) query = query.where("post_id", "=", filter.post);
      const after = filter.after;
      if (after) {
        query = query.where((eb) =>
          eb.or([
            eb("created_at", "<", after.at),
            eb.and([eb("created_at", "=", after.at), eb("id", "<", Number(after.key))]),
          ]),
        );
      }
      // The queue is worked oldest first; the recent list shows the newest first.
      const order = filter.status === "pending" ? "asc" : "desc";
      const rows = await query
        .orderBy("created_at", order)
        .orderBy("id", order)
        .limit(filter.limit)
        .execute();
      const parentIds = rows.flatMap((row) => (row.parent_id === null ? [] : [row.parent_id]));
      const parents = new Map(
        parentIds.length === 0
          ? []
          : (
              await db
                .selectFrom("science_comments")
                .select(["id", "user_name", "content", "deleted_at"])
                .where("id", "in", parentIds)
                .execute()
            ).map((parent) => [parent.id, parent]),
      );
      const replyTo = (parentId: number | null) => {
        const parent = parentId === null ? undefined : parents.get(parentId);
        if (!parent) return null;
        const deleted = parent.deleted_at !== null;
        return {
          id: parent.id,
          userName: deleted ? "" : parent.user_name,
          excerpt: deleted ? "" : excerptOf(parent.content),
        };
      };
      const remote = await remoteWritersOf(db, rows);
      return rows.map((row) => ({
        id: row.id,
        postId: row.post_id,
        postTitle: titles.of("science", row.post_id),
        ...(remote.has(row.id) ? { handle: remote.get(row.id)?.handle } : {}),
        content: row.content,
        userName: row.user_name,
        byOwner: row.visitor_id === ownerVisitorId,
        createdAt: toIso(row.created_at),
        updatedAt: toIso(row.updated_at),
        status: row.status,
        replyTo: replyTo(row.parent_id),
      }));
    },

    /** Who wrote these comments, on which post, and how they begin: what the ban list shows. */
    async commentSummaries(
      ids: number[],
    ): Promise<Map<number, { id: number; userName: string; postTitle: string; excerpt: string }>> {
      if (ids.length === 0) return new Map();
      const rows = await db
        .selectFrom("science_comments")
        .select(["id", "post_id", "user_name", "content"])
        .where("id", "in", ids)
        .where("deleted_at", "is", null)
        .execute();
      return new Map(
        rows.map((row) => [
          row.id,
          {
            id: row.id,
            userName: row.user_name,
            postTitle: titles.of("science", row.post_id),
            excerpt: row.content.length > 140 ? `${row.content.slice(0, 139)}…` : row.content,
          },
        ]),
      );
    },

    /**
     * Every comment by state, none deleted: the filters' numbers, the badge's
     * and the overview's. Counted from `science_comments_counted` alone
     * (migration 044), whose condition this states as it is written there.
     */
    async commentCounts(): Promise<Record<CommentStatusFilter, number>> {
      const rows = await db
        .selectFrom("science_comments")
        .select(["status", (eb) => eb.fn.countAll().as("n")])
        .where(sql<boolean>`deleted_at is null and status in ('pending', 'published', 'spam')`)
        .groupBy("status")
        .execute();
      const of = (status: string) => Number(rows.find((row) => row.status === status)?.n ?? 0);
      return { published: of("published"), pending: of("pending"), spam: of("spam") };
    },

    async subscriberCounts(): Promise<{ pending: number; confirmed: number }> {
      const rows = await db
        .selectFrom("subscribers")
        .select(["status", (eb) => eb.fn.countAll().as("n")])
        .groupBy("status")
        .execute();
      const of = (status: string) => Number(rows.find((row) => row.status === status)?.n ?? 0);
      return { pending: of("pending"), confirmed: of("confirmed") };
    },

    /** Addresses containing `q`, newest first. */
    async searchSubscribers(filter: {
      q?: string | undefined;
      limit: number;
    }): Promise<ConsoleSubscriber[]> {
      let query = db
        .selectFrom("subscribers")
        .select((eb) => [
          "email",
          "status",
          "created_at",
          "confirmed_at",
          subscriberSuppressed(eb).as("suppressed"),
        ]);
      const typed = filter.q?.trim();
      // A domain typed as the list shows it, in Unicode ("bücher" or "leser@bücher.example"),
      // is looked for in punycode, as kept: what follows the last "@" is the domain.
      const q = typed && /[^\p{ASCII}]/u.test(typed) ? keptDomain(`@${typed}`).slice(1) : typed;
      if (q) query = query.where(containsText("email", q), "=", true);
      const rows = await query
        .orderBy("created_at", "desc")
        .orderBy("id", "desc")
        .limit(filter.limit)
        .execute();
      return rows.map((row) => ({
        email: readableAddress(row.email),
        status: row.status,
        suppressed: Boolean(row.suppressed),
        createdAt: toIso(row.created_at),
        confirmedAt: row.confirmed_at === null ? null : toIso(row.confirmed_at),
      }));
    },

    /**
     * Mail waiting in the outbox, mail that failed for good, and the oldest
     * waiting; apart, the mail queued for a later time never tried yet (a
     * call's reminders), which is not a backlog however early it was queued.
     */
    async outboxBacklog() {
      const rows = await db
        .selectFrom("outbox")
        .select([
          "status",
          sql<boolean>`status = 'queued' and attempts = 0 and next_attempt_at > ${now().toISOString()}`.as(
            "later",
          ),
          (eb) => eb.fn.countAll().as("n"),
          (eb) => eb.fn.min("created_at").as("oldest"),
        ])
        .where("status", "in", ["queued", "sending", "failed"])
        .groupBy(["status", "later"])
        .execute();
      const later = (row: (typeof rows)[number]) => row.later === true || Number(row.later) === 1;
      const count = (picked: typeof rows) => picked.reduce((sum, row) => sum + Number(row.n), 0);
      const waiting = rows.filter((row) => row.status !== "failed" && !later(row));
      const oldest = waiting
        .map((row) => (row.oldest === null ? null : toIso(row.oldest as Date | string)))
        .filter((value): value is string => value !== null)
        .sort()[0];
      return {
        queued: count(waiting),
        scheduled: count(rows.filter(later)),
        failed: count(rows.filter((row) => row.status === "failed")),
        oldestQueuedAt: oldest ?? null,
      };
    },
  };
}
