import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { Expression, ExpressionBuilder, SqlBool } from "kysely";
import { dateKey } from "../../contract/time-zones.ts";
import type { Database } from "../db/schema.ts";
import type { Db, Store } from "../db/store.ts";
import { takeTurn } from "../db/turns.ts";
import { countByAddress, networkFactor, type Refusal } from "../lib/address-limit.ts";
import { dayMs, toIso } from "../lib/time.ts";

/**
 * What the bookings' limits count (docs/product.md, "Book a call"), in a
 * booking's or a move's transaction: bookings an hour from a connection, one
 * booking an hour per mailbox and the calls it holds ahead, and the most
 * calls a day may hold. Those three wait their turn behind the others
 * counting the same, so requests at the same instant cannot pass them
 * (docs/decisions/043-bookings.md). The hour's bookings are counted in
 * `bookings_made`, which their erasure leaves: erasing a booking does not make
 * room for another (docs/decisions/081-booking-limits-outlast-erasure.md).
 */

/** The window of the hourly limits. */
export const limitsHourMs = 3_600_000;

/**
 * Bookings one mailbox may be sent in a day, erased or not, and so how long `bookings_made`
 * keeps a booking made: one an hour alone let a stranger who booked for an address, erased
 * the booking and booked again send it an invitation and a cancellation every hour.
 */
export const bookingsPerMailboxPerDay = 3;

/** The digests a booking made is counted by. */
type Counted = { addressHash: string; ipHash: string; networkHash: string };

/**
 * The booking pages' loads and posts, and the API's lists of free times, one
 * address may make in a minute: a person needs a few. One network may make
 * ten times as many (`countByAddress`).
 */
export const bookingLoadsPerMinute = 60;
/** What a load past that allowance is told, as a page or as JSON. */
export const tooManyLoads = (from: Refusal["from"]) =>
  `Too many requests from ${from}; wait a minute and try again.`;

/**
 * The booking pages' loads and posts, the reader's links' pages with them, counted by address
 * and network for the minute as one: `refuse` answers one past the allowance with its words,
 * after a Retry-After (a page's preHandler).
 */
export function bookingPagesLimit(app: FastifyInstance) {
  const limit = countByAddress(app, {
    name: "booking pages",
    max: bookingLoadsPerMinute,
    timeWindow: 60_000,
  });
  return (refuse: (reply: FastifyReply, said: string) => FastifyReply) =>
    async (request: FastifyRequest, reply: FastifyReply) => {
      const refused = await limit(request);
      if (!refused) return;
      reply.header("retry-after", String(refused.retryAfter));
      return refuse(reply, tooManyLoads(refused.from));
    };
}

/** Which of a mailbox's limits a booking meets: the hour's, the day's, or its calls ahead. */
export type MailboxFull = "mailbox" | "mailbox today" | "mailbox ahead";

/** Which of a connection's limits a booking meets: its own, or its network's. */
export type ConnectionFull = "connection" | "connection ahead" | "network" | "network ahead";

/** The most calls one day (in the owner's zone) may hold; a null `max` is no maximum. */
export type DayLimit = { zone: string; max: number | null };

export function bookingLimits(store: Store, clock: () => Date) {
  const count = async (
    where: (eb: ExpressionBuilder<Database, "bookings">) => Expression<SqlBool>,
    within: Db = store.db,
  ): Promise<number> => {
    const row = await within
      .selectFrom("bookings")
      .select((eb) => eb.fn.countAll<number | string>().as("n"))
      .where(where)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  };
  /** The calls booked still ahead. */
  const stillAhead = (eb: ExpressionBuilder<Database, "bookings">) => [
    eb("status", "=", "booked"),
    eb("ends_at", ">", clock().toISOString()),
  ];
  /** Bookings made since `since` with a digest, erased since or not. */
  const madeSince = async (
    trx: Db,
    column: "address_hash" | "ip_hash" | "network_hash",
    value: string,
    since: Date,
  ): Promise<number> => {
    const row = await trx
      .selectFrom("bookings_made")
      .select((eb) => eb.fn.countAll<number | string>().as("n"))
      .where(column, "=", value)
      .where("made_at", ">=", since.toISOString())
      .executeTakeFirstOrThrow();
    return Number(row.n);
  };

  return {
    /**
     * Whether one connection booked `max` calls since `since` ("connection"), or holds `max`
     * calls still ahead ("connection ahead"): else an address could fill the calendar, `max`
     * calls an hour. Its network, `networkFactor` times as many of each ("network",
     * "network ahead"): else a network's 65,536 addresses could.
     */
    async connectionFull(
      trx: Db,
      { ipHash, networkHash }: { ipHash: string; networkHash: string },
      since: Date,
      max: number,
    ): Promise<ConnectionFull | null> {
      await takeTurn(store.kind, trx, "booking network", networkHash);
      await takeTurn(store.kind, trx, "booking connection", ipHash);
      const counts = [
        ["connection", "ip_hash", ipHash, max],
        ["network", "network_hash", networkHash, max * networkFactor],
      ] as const;
      for (const [from, column, value, most] of counts) {
        if ((await madeSince(trx, column, value, since)) >= most) return from;
        const ahead = await count((eb) => eb.and([eb(column, "=", value), ...stillAhead(eb)]), trx);
        if (ahead >= most) return `${from} ahead`;
      }
      return null;
    },

    /**
     * Whether a booking for the mailbox was made since `hourAgo` ("mailbox"), or
     * `bookingsPerMailboxPerDay` in the last day ("mailbox today"), or it holds
     * `perMailbox` calls still ahead ("mailbox ahead"). Counted after the connection's limits,
     * so that a connection at its own is refused alike whatever the address holds.
     */
    async mailboxFull(
      trx: Db,
      {
        addressHash,
        hourAgo,
        perMailbox,
      }: { addressHash: string; hourAgo: Date; perMailbox: number },
    ): Promise<MailboxFull | null> {
      await takeTurn(store.kind, trx, "booking mailbox", addressHash);
      if ((await madeSince(trx, "address_hash", addressHash, hourAgo)) > 0) return "mailbox";
      const dayAgo = new Date(clock().getTime() - dayMs);
      if ((await madeSince(trx, "address_hash", addressHash, dayAgo)) >= bookingsPerMailboxPerDay) {
        return "mailbox today";
      }
      const ahead = await count(
        (eb) => eb.and([eb("address_hash", "=", addressHash), ...stillAhead(eb)]),
        trx,
      );
      return ahead >= perMailbox ? "mailbox ahead" : null;
    },

    /** What the hourly limits count of a booking made `at`, in the booking's transaction. */
    async made(trx: Db, { addressHash, ipHash, networkHash }: Counted, at: string) {
      await trx
        .insertInto("bookings_made")
        .values({
          address_hash: addressHash,
          ip_hash: ipHash,
          network_hash: networkHash,
          made_at: at,
        })
        .execute();
    },

    /** Forgets the bookings made before the day the limits count. */
    async forgetMade(trx: Db) {
      const dayAgo = new Date(clock().getTime() - dayMs).toISOString();
      await trx.deleteFrom("bookings_made").where("made_at", "<", dayAgo).execute();
    },

    /** Whether the owner's day of `start` holds its most calls already, besides the one `moving`. */
    async dayFull(trx: Db, start: Date, day: DayLimit, moving?: number): Promise<boolean> {
      if (day.max === null) return false;
      const key = dateKey(start, day.zone);
      await takeTurn(store.kind, trx, "booking day", key);
      const near = await trx
        .selectFrom("bookings")
        .select("starts_at")
        .where("status", "=", "booked")
        .where("starts_at", ">", new Date(start.getTime() - 2 * dayMs).toISOString())
        .where("starts_at", "<", new Date(start.getTime() + 2 * dayMs).toISOString())
        .$if(moving !== undefined, (q) => q.where("id", "<>", moving ?? 0))
        .execute();
      const onDay = near.filter((row) => dateKey(new Date(toIso(row.starts_at)), day.zone) === key);
      return onDay.length >= day.max;
    },
  };
}
