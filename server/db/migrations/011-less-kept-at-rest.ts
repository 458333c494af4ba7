import { type Kysely, sql } from "kysely";
import type { Migration } from "kysely/migration";

/**
 * Less kept at rest. The audit trail never holds an address: a removal it
 * recorded with one becomes "1 address", as it is recorded now.
 *
 * A webhook call about a comment names its comment instead of holding its
 * text, and the owner's notifications and webhook calls forget their payload
 * once they are done with (docs/decisions/011-owner-notifications.md):
 * comment calls written before keep the comment's id, state and time while
 * they wait, and nothing once sent, failed or cancelled. Calls about
 * enquiries keep their body while they wait.
 */
export function lessKeptAtRest(): Migration {
  return {
    async up(db: Kysely<unknown>) {
      await sql`update owner_audit set object = '1 address'
        where action = 'subscriber remove'`.execute(db);
      await sql`update outbox set payload = null
        where kind in ('comment_notice', 'comment_digest', 'webhook')
        and status in ('sent', 'failed', 'cancelled')`.execute(db);
      const { rows } = await sql<{ id: number | string; payload: string }>`select id, payload
        from outbox where kind = 'webhook' and payload like '{"type":"comment.%'`.execute(db);
      for (const row of rows) {
        let body: { type?: unknown; occurredAt?: unknown; comment?: { id?: unknown } } | null;
        try {
          body = JSON.parse(row.payload);
        } catch {
          body = null;
        }
        const id = body?.comment?.id;
        const payload =
          typeof id === "number" && typeof body?.occurredAt === "string"
            ? JSON.stringify({
                commentId: id,
                state: body.type === "comment.held" ? "held" : "created",
                occurredAt: body.occurredAt,
              })
            : null;
        await sql`update outbox set payload = ${payload} where id = ${row.id}`.execute(db);
      }
    },
  };
}
