import type { Kysely } from "kysely";
import type { Migration } from "kysely/migration";

/**
 * What the spam filter learnt from a comment the owner marked as junk, kept
 * apart from its text: the comment's features (its words and word pieces, in
 * no order) and the product names and sites it named. When the writer
 * deletes or edits the comment its text goes, and these stay, so a spammer
 * cannot make the filter forget the owner's decisions.
 */
export function spamExampleFeatures(): Migration {
  return {
    async up(db: Kysely<unknown>) {
      await db.schema.alterTable("spam_examples").addColumn("features", "text").execute();
    },
  };
}
