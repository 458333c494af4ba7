import { type ExpressionBuilder, sql } from "kysely";
import type { EditionProgress } from "../../contract/console.ts";
import type { Database, DatabaseKind } from "../db/schema.ts";
import type { Store } from "../db/store.ts";
import { dayMs, toIso } from "../lib/time.ts";
import { enqueueEach } from "../outbox/queue.ts";
import { subscriberSuppressed } from "../outbox/suppressions.ts";
import type { Edition } from "./editions.ts";

/** Unsubscribes within this long of a copy count against its edition. */
const unsubscribeWindowMs = 7 * dayMs;

/** A subscriber whose address no mail goes to (a bounce, a complaint) is left out of an edition. */
const notSuppressed = (eb: ExpressionBuilder<Database, "subscribers">) =>
  eb.not(subscriberSuppressed(eb));

/**
 * A subscriber with no copy of the edition yet, in any letter case: one who
 * had it, left, and came back spelled otherwise ("Ann@" then "ann@") is the
 * same address, which the unique index on (edition, address) alone would
 * not see; nor had it under another spelling of its mailbox that the owner
 * removed since, whose copy keeps the mailbox's digest instead of the address
 * (`subscribers.remove`). Only a subscriber whose row is younger than the
 * edition can be one (a row is never respelled, and one address has one row
 * at a time); `storedAt` is the edition's time less an hour, for another
 * instance's clock. Each is looked for by the outbox's index on the
 * lower-case address, then on the digest: a few rows per subscriber, however
 * long the list.
 */
const withoutCopy =
  (kind: DatabaseKind, editionId: number, storedAt: string) =>
  ({ eb, and, exists, not, or, selectFrom }: ExpressionBuilder<Database, "subscribers">) => {
    // SQLite, without statistics, would read them by the edition's index, every copy
    // queued so far for each subscriber: the "+" leaves it the address's.
    const copies = () =>
      selectFrom("outbox")
        .select("outbox.id")
        .where(
          kind === "sqlite" ? sql<number>`+outbox.edition_id` : sql.ref("outbox.edition_id"),
          "=",
          editionId,
        );
    return or([
      eb("subscribers.created_at", "<", storedAt),
      and([
        not(
          exists(
            copies().where(
              sql<string>`lower(outbox.email)`,
              "=",
              sql<string>`lower(subscribers.email)`,
            ),
          ),
        ),
        not(exists(copies().whereRef("outbox.email_hash", "=", "subscribers.email_hash"))),
      ]),
    ]);
  };

/**
 * The newsletter's editions as stored, their queueing in the outbox (one row
 * per confirmed subscriber but the suppressed), and each edition's progress.
 * `fillDigests` gives subscribers an older instance wrote without their
 * digest theirs (server/outbox/suppressions.ts): the suppressed are found by it.
 */
export function createEditionsRepository(store: Store, fillDigests: () => Promise<unknown>) {
  const { db } = store;
  const nowIso = () => new Date().toISOString();

  /**
   * Readers who unsubscribed within 7 days of their copy's sending: copies
   * whose unsubscribe link's seed was used within a week of the edition's
   * first copy, and not before their own.
   */
  async function unsubscribesAfter(editionId: number): Promise<number> {
    const first = await db
      .selectFrom("outbox")
      .select((eb) => eb.fn.min("sent_at").as("first"))
      .where("edition_id", "=", editionId)
      .where("status", "=", "sent")
      .executeTakeFirst();
    if (!first?.first) return 0;
    const until = new Date(new Date(first.first).getTime() + unsubscribeWindowMs).toISOString();
    const { count } = await db
      .selectFrom("outbox")
      .innerJoin("unsubscribed_tokens", "unsubscribed_tokens.token", "outbox.token")
      .select((eb) => eb.fn.countAll().as("count"))
      .where("outbox.edition_id", "=", editionId)
      .where("outbox.status", "=", "sent")
      .whereRef("unsubscribed_tokens.unsubscribed_at", ">=", "outbox.sent_at")
      .where("unsubscribed_tokens.unsubscribed_at", "<=", until)
      .executeTakeFirstOrThrow();
    return Number(count);
  }

  return {
    /**
     * Stores an edition under its slug. The same file again is the same
     * edition; a changed file under a used name is refused (the sentence
     * saying so is returned), since part of the list may already have the old text.
     */
    async saveEdition(
      edition: Edition,
      within = db,
    ): Promise<{ id: number; created: boolean } | string> {
      const existing = await within
        .selectFrom("editions")
        .select(["id", "subject", "html", "text"])
        .where("slug", "=", edition.slug)
        .executeTakeFirst();
      if (existing) {
        if (
          existing.subject !== edition.subject ||
          existing.html !== edition.html ||
          existing.text !== edition.text
        ) {
          return `The edition "${edition.slug}" was queued before with other content; give the changed edition a new file name.`;
        }
        return { id: existing.id, created: false };
      }
      const { id } = await within
        .insertInto("editions")
        .values({
          slug: edition.slug,
          subject: edition.subject,
          html: edition.html,
          text: edition.text,
          created_at: nowIso(),
        })
        .onConflict((conflict) => conflict.column("slug").doNothing())
        .returning("id")
        .executeTakeFirstOrThrow();
      // Its web links, each once, counted as they are followed (server/newsletter/clicks.ts).
      const urls = [
        ...new Set(
          edition.links
            .filter((link) => link.kind === "link" && /^https?:\/\//i.test(link.absolute))
            .map((link) => link.absolute),
        ),
      ];
      if (urls.length > 0) {
        await within
          .insertInto("edition_links")
          .values(urls.map((url, position) => ({ edition_id: id, position, url })))
          .onConflict((conflict) => conflict.doNothing())
          .execute();
      }
      return { id, created: true };
    },

    /** Confirmed subscribers, and of them those an edition leaves out: their address is suppressed. */
    async reach(): Promise<{ confirmed: number; suppressed: number }> {
      await fillDigests();
      const confirmed = db.selectFrom("subscribers").where("status", "=", "confirmed");
      const [all, reached] = await Promise.all(
        [confirmed, confirmed.where(notSuppressed)].map(async (query) =>
          Number(
            (await query.select((eb) => eb.fn.countAll().as("n")).executeTakeFirstOrThrow()).n,
          ),
        ),
      );
      return { confirmed: all ?? 0, suppressed: (all ?? 0) - (reached ?? 0) };
    },

    /**
     * One outbox row per confirmed subscriber who has no copy of the edition
     * yet; the number added. The list is read in pages of `pageSize`
     * subscribers in the order of their id, each page copied into the outbox
     * by the database in its own transaction, but for the suppressed, found
     * by the digest each subscriber keeps beside its address (`heldAddress`,
     * lib/mailbox.ts), and no transaction holds the database for long
     * (docs/architecture.md, "The outbox"). Stopped half way, it is resumed by
     * running it again: the unique index on (edition, address) skips those
     * queued before, and a subscriber is never skipped, since each page
     * starts after the last id the page before it covered. Each page fills
     * the digests an older instance left out first. `onPage` runs after
     * each page (the server wakes its outbox worker, which starts sending
     * while the rest is queued).
     */
    async queueEdition(
      editionId: number,
      { pageSize = 1000, onPage }: { pageSize?: number; onPage?: (queued: number) => void } = {},
    ): Promise<number> {
      const now = nowIso();
      const edition = await db
        .selectFrom("editions")
        .select("created_at")
        .where("id", "=", editionId)
        .executeTakeFirstOrThrow();
      const storedAt = new Date(Date.parse(toIso(edition.created_at)) - 3_600_000).toISOString();
      let after = 0;
      let queued = 0;
      for (;;) {
        const page = await db
          .selectFrom((eb) =>
            eb
              .selectFrom("subscribers")
              .select("id")
              .where("status", "=", "confirmed")
              .where("id", ">", after)
              .orderBy("id")
              .limit(pageSize)
              .as("page"),
          )
          .select((eb) => eb.fn.max("id").as("last"))
          .executeTakeFirst();
        if (page?.last === null || page?.last === undefined) return queued;
        const last = Number(page.last);
        await fillDigests();
        queued += await enqueueEach(
          db,
          now,
          { kind: "edition", editionId },
          db
            .selectFrom("subscribers")
            .select(["email", "unsubscribe_token as token"])
            .where("status", "=", "confirmed")
            .where("id", ">", after)
            .where("id", "<=", last)
            .where(notSuppressed)
            .where(withoutCopy(store.kind, editionId, storedAt))
            .orderBy("id"),
        );
        after = last;
        onPage?.(queued);
      }
    },

    /** How many copies of the edition were queued after `since`, or ever when it is null. */
    async queuedAfter(editionId: number, since: string | null): Promise<number> {
      const { n } = await db
        .selectFrom("outbox")
        .select((eb) => eb.fn.countAll().as("n"))
        .where("kind", "=", "edition")
        .where("edition_id", "=", editionId)
        .$if(since !== null, (query) => query.where("created_at", ">", since as string))
        .executeTakeFirstOrThrow();
      return Number(n);
    },

    async edition(id: number) {
      return db
        .selectFrom("editions")
        .select(["slug", "subject", "html", "text"])
        .where("id", "=", id)
        .executeTakeFirst();
    },

    /** An edition's tracked links, in their order. */
    async links(editionId: number) {
      return db
        .selectFrom("edition_links")
        .select(["position", "url"])
        .where("edition_id", "=", editionId)
        .orderBy("position")
        .execute();
    },

    /**
     * A click on an edition's link: its address and the edition's slug, after one
     * more is counted (unless `count` is false); null when the edition has no such link.
     */
    async click(
      editionId: number,
      position: number,
      { count }: { count: boolean },
    ): Promise<{ url: string; slug: string } | null> {
      const link = count
        ? await db
            .updateTable("edition_links")
            .set((eb) => ({ clicks: eb("clicks", "+", 1) }))
            .where("edition_id", "=", editionId)
            .where("position", "=", position)
            .returning("url")
            .executeTakeFirst()
        : await db
            .selectFrom("edition_links")
            .select("url")
            .where("edition_id", "=", editionId)
            .where("position", "=", position)
            .executeTakeFirst();
      if (!link) return null;
      const edition = await db
        .selectFrom("editions")
        .select("slug")
        .where("id", "=", editionId)
        .executeTakeFirst();
      return { url: link.url, slug: edition?.slug ?? "" };
    },

    async progress(): Promise<EditionProgress[]> {
      const editions = await db
        .selectFrom("editions")
        .select(["id", "slug", "subject", "created_at"])
        .orderBy("id")
        .execute();
      const counts = await db
        .selectFrom("outbox")
        .select(["edition_id", "status", "feedback", (eb) => eb.fn.countAll().as("count")])
        .where("edition_id", "is not", null)
        .groupBy(["edition_id", "status", "feedback"])
        .execute();
      const links = await db
        .selectFrom("edition_links")
        .select(["edition_id", "url", "clicks"])
        .orderBy("edition_id")
        .orderBy("position")
        .execute();
      return Promise.all(
        editions.map(async (edition) => {
          const mine = counts.filter((c) => Number(c.edition_id) === Number(edition.id));
          // Copies by status (sent, failed…) or by what they drew (bounce, complaint).
          const of = (...states: string[]) =>
            mine
              .filter((c) => states.includes(c.status) || states.includes(c.feedback ?? ""))
              .reduce((sum, c) => sum + Number(c.count), 0);
          return {
            slug: edition.slug,
            subject: edition.subject,
            createdAt: new Date(edition.created_at).toISOString(),
            queued: of("queued", "sending"),
            sent: of("sent"),
            failed: of("failed"),
            cancelled: of("cancelled"),
            bounced: of("bounce"),
            complaints: of("complaint"),
            unsubscribes: await unsubscribesAfter(edition.id),
            links: links
              .filter((link) => Number(link.edition_id) === Number(edition.id))
              .map((link) => ({ url: link.url, clicks: Number(link.clicks) })),
          };
        }),
      );
    },

    /** Failed rows of an edition with the SMTP server's answer, for the owner (a removed address's are not). */
    async failures(slug: string) {
      return db
        .selectFrom("outbox")
        .innerJoin("editions", "editions.id", "outbox.edition_id")
        .select(["outbox.email", "outbox.last_error"])
        .where("editions.slug", "=", slug)
        .where("outbox.status", "=", "failed")
        .where("outbox.email", "is not", null)
        .orderBy("outbox.id")
        .execute();
    },
  };
}

export type EditionsRepository = ReturnType<typeof createEditionsRepository>;
