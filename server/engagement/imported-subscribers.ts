import type { Kysely } from "kysely";
import type { Database } from "../db/schema.ts";

/*
 * The subscribers an import brought (docs/product.md, "Moving in and out"):
 * those `import_sources` names, which come in pending and are asked to
 * confirm by `newsletter reconfirm`.
 */

/**
 * Imported addresses that have not confirmed here and whose mailbox, in
 * any spelling (its digest), had no confirmation mail since `since`: whom
 * `newsletter reconfirm` would ask. Of the spellings of one mailbox the
 * first still pending is asked alone, so a list that spells one inbox a
 * thousand ways sends it one mail a day, as the form would.
 */
export const reconfirmableSubscribers = (db: Kysely<Database>, since: string) =>
  db
    .selectFrom("subscribers")
    .select(["subscribers.id", "subscribers.email"])
    .where((eb) =>
      eb.exists(
        eb
          .selectFrom("import_sources")
          .select("import_sources.row_id")
          .where("import_sources.row_table", "=", "subscribers")
          .whereRef("import_sources.row_id", "=", "subscribers.id"),
      ),
    )
    .where("subscribers.status", "=", "pending")
    .where((eb) =>
      eb.or([
        eb("subscribers.confirmation_sent_at", "is", null),
        eb("subscribers.confirmation_sent_at", "<=", since),
      ]),
    )
    .where((eb) =>
      eb.not(
        eb.exists(
          eb
            .selectFrom("subscribers as same")
            .select("same.id")
            .whereRef("same.email_hash", "=", "subscribers.email_hash")
            .where((inner) =>
              inner.or([
                inner("same.confirmation_sent_at", ">", since),
                inner.and([
                  inner("same.status", "=", "pending"),
                  inner("same.id", "<", inner.ref("subscribers.id")),
                ]),
              ]),
            ),
        ),
      ),
    )
    .orderBy("subscribers.id");
