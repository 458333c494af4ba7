import type { Kysely } from "kysely";
import type { Migration } from "kysely/migration";

/**
 * How many of a booking's moves were the owner's (docs/product.md, "Book a call"): its
 * sequence counts every change, and the reader's allowance of moves and their links'
 * token count only the reader's. Every booking before was moved by its reader alone.
 * This text is frozen once shipped.
 */
export function ownerMoves(): Migration {
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .alterTable("bookings")
        .addColumn("owner_moves", "integer", (column) => column.notNull().defaultTo(0))
        .execute();
    },
  };
}
