import { sql } from "kysely";
import type { Db, Store } from "../db/store.ts";

type Feedback = "bounce" | "complaint";

/**
 * What became of a sent message, from a bounce or a complaint about it: the
 * edition's figures count it once, and a complaint outranks a bounce.
 * `writer` must hold the row or find it free (its sender's own transaction).
 */
export async function recordFeedback(writer: Db, rowId: number, feedback: Feedback) {
  await writer
    .updateTable("outbox")
    .set({ feedback })
    .where("id", "=", rowId)
    .where((eb) =>
      feedback === "complaint"
        ? eb.or([eb("feedback", "is", null), eb("feedback", "!=", "complaint")])
        : eb("feedback", "is", null),
    )
    .execute();
}

/**
 * Puts the marks left in `outbox_marks` on their rows that no sender holds,
 * and forgets those whose row is gone (PostgreSQL). A sender runs it once it
 * has committed its outcome, so a mark left while it held the row is taken.
 */
export async function takeMarks(store: Store) {
  if (store.kind !== "postgres") return;
  await sql`with free as (
      select outbox.id from outbox join outbox_marks on outbox_marks.outbox_id = outbox.id
      for update of outbox skip locked
    ), taken as (
      delete from outbox_marks where outbox_id in (select id from free)
      returning outbox_id, feedback
    ), gone as (
      delete from outbox_marks
      where not exists (select 1 from outbox where outbox.id = outbox_marks.outbox_id)
    )
    update outbox set feedback = case when taken.feedback = 'complaint' then 'complaint'
      else coalesce(outbox.feedback, taken.feedback) end
    from taken where outbox.id = taken.outbox_id`.execute(store.db);
}

/**
 * A report's mark on the mail of row `rowId` (docs/mail.md, "Bounces and
 * complaints"), never waiting for its sender: on PostgreSQL a sender holds
 * its row locked until it records the outcome, as long as the SMTP server
 * takes, so the mark is left in `outbox_marks` and put on the row now if no
 * sender holds it, or by the sender's `takeMarks` once it has committed.
 * Either runs after the mark is saved, so none is left behind.
 */
export async function markReported(store: Store, rowId: number, feedback: Feedback) {
  if (store.kind === "sqlite") return recordFeedback(store.db, rowId, feedback);
  await store.db
    .insertInto("outbox_marks")
    .values({ outbox_id: rowId, feedback })
    .onConflict((conflict) =>
      conflict
        .column("outbox_id")
        .doUpdateSet({ feedback })
        .where("outbox_marks.feedback", "!=", "complaint"),
    )
    .execute();
  await takeMarks(store);
}
