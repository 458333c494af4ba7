import { type Expression, type ExpressionBuilder, type SqlBool, sql } from "kysely";
import type { Database, OutboxKind, OutboxTable } from "../db/schema.ts";
import type { Db, Store } from "../db/store.ts";
import { deleted } from "./queue.ts";

/*
 * The outbox's rows found again by what they are about, to forget (delete) or to hold
 * (lock) them: a feature names its rows by kind and by a token, a payload or a recipient.
 */

type Where = ExpressionBuilder<Database, "outbox">;
type Condition = Expression<SqlBool>;

/** Which queued or sent messages: of these kinds, with one of these tokens, payloads or recipients. */
type Forgotten = {
  kinds: readonly OutboxKind[];
  ids?: readonly number[];
  tokens?: readonly string[];
  /** Recipients, in any letter case (an address erased on request). */
  addresses?: readonly string[];
  payloads?: readonly string[];
  /** `LIKE` patterns on the payload (a webhook body naming a deleted row). */
  payloadsLike?: readonly string[];
  /** Only messages in these states (those still queued, say); any state unless given. */
  statuses?: readonly Status[];
  /** Never these rows (the one being sent, whose outcome is still to be recorded). */
  except?: readonly number[];
};

type Status = OutboxTable["status"];
/** Every state: a read by kind naming them all reads the index outbox_due (state, kind, id). */
const states: Record<Status, 0> = { queued: 0, sending: 0, sent: 0, failed: 0, cancelled: 0 };
export const anyStatus = (eb: Where) => eb("status", "in", Object.keys(states) as Status[]);

const chunk = <T>(values: readonly T[], size: number) =>
  Array.from({ length: Math.ceil(values.length / size) }, (_, i) =>
    values.slice(i * size, i * size + size),
  );

/** The conditions `match` names, each a statement's (a few hundred values at most). */
function conditions({
  kinds,
  statuses,
  except = [],
  ...match
}: Forgotten): ((eb: Where) => Condition)[] {
  const { ids = [], tokens = [], addresses = [], payloads = [], payloadsLike = [] } = match;
  if (kinds.length === 0) return [];
  const lower = (part: readonly string[]) => part.map((address) => address.trim().toLowerCase());
  const each: ((eb: Where) => Condition)[] = [
    ...chunk(ids, 500).map((part) => (eb: Where) => eb("id", "in", part)),
    ...chunk(tokens, 500).map((part) => (eb: Where) => eb("token", "in", part)),
    ...chunk(addresses, 500).map(
      (part) => (eb: Where) => eb(sql<string>`lower(email)`, "in", lower(part)),
    ),
    // No index holds payloads: read by state and kind, only their kinds' rows.
    ...chunk(payloads, 500).map(
      (part) => (eb: Where) => eb.and([anyStatus(eb), eb("payload", "in", part)]),
    ),
    ...chunk(payloadsLike, 100).map(
      (part) => (eb: Where) =>
        eb.and([anyStatus(eb), eb.or(part.map((pattern) => eb("payload", "like", pattern)))]),
    ),
  ];
  return each.map(
    (where) => (eb: Where) =>
      eb.and([
        eb("kind", "in", kinds),
        where(eb),
        ...(statuses === undefined ? [] : [eb("status", "in", statuses)]),
        ...(except.length === 0 ? [] : [eb("id", "not in", except)]),
      ]),
  );
}

/** Deletes the messages about something deleted: deleted means the outbox too. How many. */
export async function forget(writer: Db, match: Forgotten): Promise<number> {
  let count = 0;
  for (const where of conditions(match)) {
    const rows = await writer.deleteFrom("outbox").where(where).returning("id").execute();
    count += await deleted(writer, rows);
  }
  return count;
}

/**
 * PostgreSQL: locks the messages `match` names, in the order of their ids, to the end of
 * `writer`'s transaction, waiting for any a sender holds (its claim, server/outbox/queue.ts).
 * A change that then locks a row of its own and forgets these takes its locks in the order
 * a send does (the message first, then what its outcome changes): without it, each held what
 * the other waited for. SQLite's write transactions take turns already.
 */
export async function hold(writer: Db, match: Forgotten, kind: Store["kind"]) {
  if (kind !== "postgres") return;
  for (const where of conditions(match))
    await writer.selectFrom("outbox").select("id").where(where).orderBy("id").forUpdate().execute();
}
