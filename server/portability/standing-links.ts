import { plural } from "../../contract/plural.ts";
import { isToken, legacySeed, newSeed } from "../lib/tokens.ts";
import type { ExportRows } from "./tables.ts";

/*
 * The standing links' seeds a file carries (server/lib/tokens.ts): a
 * subscriber's unsubscribe link, a reply address's and a thread's stop links.
 */

/** Where a file keeps them: each table's column. */
const seeded: Readonly<Record<string, string>> = {
  subscribers: "unsubscribe_token",
  unsubscribed_tokens: "token",
  outbox: "token",
  reply_addresses: "unsubscribe_token",
  reply_watches: "unsubscribe_token",
};

/**
 * A file written before the seeds holds the tokens themselves: each is kept
 * as the database keeps a link mailed before (migration 054), so the links
 * already mailed keep working and the database holds none.
 */
export function seedTokens(tables: readonly ExportRows[]): void {
  for (const { table, rows } of tables) {
    const column = seeded[table.name];
    if (!column) continue;
    for (const row of rows) {
      const value = row[column];
      if (isToken(value)) row[column] = legacySeed(value);
    }
  }
}

/**
 * A file that is not this site's own signed export gives every link a new
 * seed: its writer chose the seeds it holds, and could have chosen the
 * seed of a token it knows, to unsubscribe the file's readers from this site.
 * What to tell the owner.
 */
export function reseed(tables: readonly ExportRows[]): string[] {
  let count = 0;
  for (const { table, rows } of tables) {
    if (!["subscribers", "reply_addresses", "reply_watches"].includes(table.name)) continue;
    for (const row of rows) row.unsubscribe_token = newSeed();
    count += rows.length;
  }
  if (count === 0) return [];
  return [
    `${plural(count, "unsubscribe or stop link")} of the file ${count === 1 ? "was" : "were"} made anew: a link is kept only from this site's own export, read back with its cookie secret; the links mailed before no longer work here.`,
  ];
}
