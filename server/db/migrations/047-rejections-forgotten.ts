import { type Kysely, sql } from "kysely";
import type { Migration } from "kysely/migration";

/**
 * A comment the owner rejected was deleted, yet the spam filter kept its
 * text as an example for good. Rejecting teaches the filter nothing now;
 * the examples rejections left go.
 */
export function rejectionsForgotten(): Migration {
  return {
    async up(db: Kysely<unknown>) {
      await sql`delete from spam_examples where source = 'reject'`.execute(db);
    },
  };
}
