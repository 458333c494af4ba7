import { type Kysely, sql } from "kysely";
import type { Migration } from "kysely/migration";
import { withoutDirections } from "./text-directions.ts";

/**
 * The journal of live events (a day of them, replayed to a page that
 * reconnects) kept the comments migration 061 cleaned as they were, text
 * direction characters and all. Each comment event that carries a comment
 * whose HTML shows one carries it cleaned as 061 cleaned the comment
 * (`withoutDirections`, text-directions.ts); ids and order stay, so replay
 * positions keep their meaning. This text is frozen once shipped.
 */
export function eventDirections(): Migration {
  type Event = { comment?: { content: string; html: string } };
  return {
    async up(db: Kysely<unknown>) {
      for (let after = 0; ; ) {
        const { rows } = await sql<{ id: number; data: string }>`
          select id, data from events
          where type = 'comment' and id > ${after} order by id limit 500`.execute(db);
        for (const row of rows) {
          const event = JSON.parse(row.data) as Event;
          if (!event.comment) continue;
          const { content, html } = event.comment;
          const cleaned = withoutDirections({ content, content_html: html });
          if (!cleaned) continue;
          const comment = {
            ...event.comment,
            content: cleaned.content,
            html: cleaned.content_html,
          };
          await sql`update events set data = ${JSON.stringify({ ...event, comment })}
            where id = ${row.id}`.execute(db);
        }
        const last = rows.at(-1);
        if (!last || rows.length < 500) return;
        after = Number(last.id);
      }
    },
  };
}
