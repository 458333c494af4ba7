import { type Kysely, sql } from "kysely";
import type { Migration } from "kysely/migration";
import type { DatabaseKind } from "../schema.ts";

/**
 * The journal's events of one comment, by its id within a topic's comment
 * events: a comment's deletion or edit rewrites its earlier events
 * (server/events/journal.ts), which read every comment event of the post
 * before. The expression is the one that lookup writes, as each database
 * matches an index's expression only to the same one.
 * This text is frozen once shipped.
 */
export function eventsByComment(kind: DatabaseKind): Migration {
  const commentId =
    kind === "postgres"
      ? sql`(data::jsonb ->> 'commentId')`
      : sql`json_extract(data, '$.commentId')`;
  return {
    async up(db: Kysely<unknown>) {
      await sql`create index events_by_comment on events (topic, type, ${commentId})`.execute(db);
    },
  };
}
