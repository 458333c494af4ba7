import type { Selectable, Transaction } from "kysely";
import type { Database, OutboxTable } from "../db/schema.ts";
import type { Store } from "../db/store.ts";

export type OutboxRow = Selectable<OutboxTable>;

/** What became of one attempt to send a row. */
export type Delivery =
  | { outcome: "sent" }
  | { outcome: "retry"; reason: string }
  | { outcome: "failed"; reason: string }
  /** The recipient left before the mail went out. */
  | { outcome: "cancelled"; reason: string };

/**
 * Sends one claimed row. `batch` is the row itself, or for a kind sent in
 * batches (the hourly digest) every due row of that kind to the same
 * recipient, all claimed together; the outcome is recorded for each.
 */
export type Deliver = (
  row: OutboxRow,
  db: Transaction<Database> | Store["db"],
  batch: OutboxRow[],
) => Promise<Delivery>;
