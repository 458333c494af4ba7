import type { OutboxKind } from "../db/schema.ts";
import type { Store } from "../db/store.ts";
import { notSuppressed } from "../outbox/suppressions.ts";
import type { Edition } from "./editions.ts";

export type EditionProgress = {
  slug: string;
  subject: string;
  createdAt: string;
  queued: number;
  sent: number;
  failed: number;
  cancelled: number;
};

/**
 * The newsletter's editions as stored, their queueing in the outbox (one row
 * per confirmed subscriber), and each edition's progress.
 */
export function createEditionsRepository(
  store: Store,
  { clock = () => new Date() }: { clock?: () => Date } = {},
) {
  const { db } = store;
  const nowIso = () => clock().toISOString();

  return {
    /**
     * Stores an edition under its slug. The same file again is the same
     * edition; a changed file under a used name is refused, since part of
     * the list may already have the old text.
     */
    async saveEdition(edition: Edition): Promise<{ id: number; created: boolean }> {
      const existing = await db
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
          throw new Error(
            `The edition "${edition.slug}" was queued before with other content; give the changed edition a new file name.`,
          );
        }
        return { id: existing.id, created: false };
      }
      const { id } = await db
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
      return { id, created: true };
    },

    /**
     * One outbox row per confirmed subscriber who has no copy of the edition
     * yet; the number added. The list is read in pages of `pageSize`
     * subscribers in the order of their id, each page copied into the outbox
     * by the database in its own transaction: nothing of the list passes
     * through this process, and no transaction holds the database for long
     * (docs/architecture.md, "The outbox"). Stopped half way, it is resumed by
     * running it again: the unique index on (edition, address) skips those
     * queued before, and a subscriber is never skipped, since each page
     * starts after the last id the page before it covered. `onPage` runs after
     * each page (the server wakes its outbox worker, which starts sending
     * while the rest is queued).
     */
    async queueEdition(
      editionId: number,
      { pageSize = 1000, onPage }: { pageSize?: number; onPage?: (queued: number) => void } = {},
    ): Promise<number> {
      const now = nowIso();
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
        const result = await db
          .insertInto("outbox")
          .columns([
            "kind",
            "edition_id",
            "email",
            "token",
            "status",
            "attempts",
            "next_attempt_at",
            "created_at",
          ])
          .expression((eb) =>
            eb
              .selectFrom("subscribers")
              .select((s) => [
                // Typed: an INSERT … SELECT's columns are not checked against the table's.
                s.val<OutboxKind>("edition").as("kind"),
                s.val(editionId).as("edition_id"),
                "email",
                "unsubscribe_token",
                s.val("queued").as("status"),
                s.val(0).as("attempts"),
                s.val(now).as("next_attempt_at"),
                s.val(now).as("created_at"),
              ])
              .where("status", "=", "confirmed")
              .where("id", ">", after)
              .where("id", "<=", last)
              .where(notSuppressed("subscribers.email"))
              .orderBy("id"),
          )
          .onConflict((conflict) => conflict.doNothing())
          .executeTakeFirst();
        queued += Number(result.numInsertedOrUpdatedRows ?? 0);
        after = last;
        onPage?.(queued);
      }
    },

    async edition(id: number) {
      return db
        .selectFrom("editions")
        .select(["slug", "subject", "html", "text"])
        .where("id", "=", id)
        .executeTakeFirst();
    },

    async progress(): Promise<EditionProgress[]> {
      const editions = await db
        .selectFrom("editions")
        .select(["id", "slug", "subject", "created_at"])
        .orderBy("id")
        .execute();
      const counts = await db
        .selectFrom("outbox")
        .select(["edition_id", "status", (eb) => eb.fn.countAll().as("count")])
        .where("edition_id", "is not", null)
        .groupBy(["edition_id", "status"])
        .execute();
      return editions.map((edition) => {
        const of = (...statuses: string[]) =>
          counts
            .filter((c) => c.edition_id === edition.id && statuses.includes(c.status))
            .reduce((sum, c) => sum + Number(c.count), 0);
        return {
          slug: edition.slug,
          subject: edition.subject,
          createdAt: new Date(edition.created_at).toISOString(),
          queued: of("queued", "sending"),
          sent: of("sent"),
          failed: of("failed"),
          cancelled: of("cancelled"),
        };
      });
    },

    /** Failed rows of an edition with the SMTP server's answer, for the owner. */
    async failures(slug: string) {
      return db
        .selectFrom("outbox")
        .innerJoin("editions", "editions.id", "outbox.edition_id")
        .select(["outbox.email", "outbox.last_error"])
        .where("editions.slug", "=", slug)
        .where("outbox.status", "=", "failed")
        .orderBy("outbox.id")
        .execute();
    },
  };
}

export type EditionsRepository = ReturnType<typeof createEditionsRepository>;
