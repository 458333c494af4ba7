import { type Kysely, sql } from "kysely";
import type { Migration } from "kysely/migration";
import type { DatabaseKind } from "../schema.ts";

/**
 * The addresses left for reply mails, indexed by the name before the "@" as
 * every spelling of a mailbox shares it: lower case, without a "+tag" or
 * dots. A stop, or the day's share of confirmation mails, then reads the few
 * addresses of that name, not every one at Gmail. The expression is the one
 * comments/reply-watches.ts queries by. This text is frozen once shipped.
 */
export function replyAddressesByName(kind: DatabaseKind): Migration {
  const name =
    kind === "postgres"
      ? sql`(replace(split_part(split_part(lower(email), '@', 1), '+', 1), '.', ''))`
      : sql`(replace(substr(lower(email), 1, instr(substr(email, 1, instr(email, '@') - 1) || '+', '+') - 1), '.', ''))`;
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createIndex("reply_addresses_by_name")
        .on("reply_addresses")
        .expression(name)
        .execute();
    },
  };
}
