import { type Kysely, sql } from "kysely";
import type { Migration } from "kysely/migration";

/**
 * The owner's own comments (docs/decisions/016-owner-voice.md): a comment
 * written from a signed-in console session carries `by_owner = 1`, which only
 * the server sets and which the "Author" badge shows. Comments written before
 * it are readers'.
 */
export function ownerComments(): Migration {
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .alterTable("science_comments")
        .addColumn("by_owner", "integer", (c) =>
          c.notNull().defaultTo(0).check(sql`by_owner in (0, 1)`),
        )
        .execute();
    },
  };
}
