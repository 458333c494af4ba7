import {
  type Availability,
  availabilitySchema,
  defaultAvailability,
} from "../../contract/bookings.ts";
import { isUniqueViolation } from "../db/errors.ts";
import type { Db, Store } from "../db/store.ts";
import { jsonOf } from "../lib/json.ts";

/**
 * Thrown to roll back a booking or a move checked against hours that are no longer the owner's,
 * or whose time the owner's busy calendar has since been read to hold.
 */
const hoursChanged = new Error("the owner's hours or busy times changed");

/**
 * The owner's zone, as bookings and readers' days read it: the one set in the
 * console's Bookings hours, else `fallback` (BOOKING_TIMEZONE, else the
 * profile's, else UTC: config.bookingTimeZone).
 */
export const ownerZoneIn = (availability: Pick<Availability, "timeZone">, fallback: string) =>
  availability.timeZone ?? fallback;

/* The booking settings' one row: when calls can be booked, and the calendar feed's token. */
export function createBookingSettings({ db, kind }: Store, clock: () => Date) {
  const settings = (within: Db = db) =>
    within.selectFrom("booking_settings").selectAll().where("id", "=", 1);
  /** The settings' writes by this process, for what keeps a copy of them (first-call-pages.ts). */
  let writes = 0;
  /** Writes the settings' row, made with the default availability if need be. */
  async function saveSettings(
    set: { availability?: string; feed_token_hash?: string | null },
    within: Db = db,
  ) {
    const at = clock().toISOString();
    writes += 1;
    await within
      .insertInto("booking_settings")
      .values({ id: 1, availability: JSON.stringify(defaultAvailability), ...set, updated_at: at })
      .onConflict((conflict) => conflict.column("id").doUpdateSet({ ...set, updated_at: at }))
      .execute();
  }
  /**
   * Whether the availability in `trx` is still `checked`, and held so to the transaction's
   * end: on PostgreSQL a share lock on the row (made first if there is none) keeps the owner's
   * change waiting; SQLite's write transactions take turns already.
   */
  async function unchanged(trx: Db, checked: Availability): Promise<boolean> {
    await trx
      .insertInto("booking_settings")
      .values({
        id: 1,
        availability: JSON.stringify(defaultAvailability),
        updated_at: clock().toISOString(),
      })
      .onConflict((conflict) => conflict.column("id").doNothing())
      .execute();
    const row = await settings(trx)
      .$if(kind === "postgres", (query) => query.forShare())
      .executeTakeFirstOrThrow();
    const now = jsonOf(row.availability, availabilitySchema) ?? defaultAvailability;
    return JSON.stringify(now) === JSON.stringify(checked);
  }
  return {
    /**
     * `work` (a booking or a move) in a transaction; "taken" when the unique index refused
     * its start (another reader's), or when the owner's hours are no longer `hours`, those
     * its time was checked against: they are read after its write, so a change of hours
     * either waits for it or is seen by it, and what it wrote is rolled back. So too when
     * `stillFree` (a reader's time against the owner's busy times as last read) says no at
     * the end: a read that came in since the time was checked is not missed.
     */
    async orTaken<T>(
      { hours, stillFree }: { hours: Availability; stillFree?: () => boolean },
      work: (trx: Db) => Promise<T>,
    ): Promise<T | "taken"> {
      try {
        return await db.transaction().execute(async (trx) => {
          const done = await work(trx);
          const kept = done === undefined || typeof done === "string";
          if (!kept && !(await unchanged(trx, hours))) throw hoursChanged;
          if (!kept && stillFree?.() === false) throw hoursChanged;
          return done;
        });
      } catch (error) {
        if (error === hoursChanged || isUniqueViolation(error)) return "taken";
        throw error;
      }
    },

    async availability(): Promise<Availability> {
      const row = await settings().executeTakeFirst();
      if (!row) return defaultAvailability;
      return jsonOf(row.availability, availabilitySchema) ?? defaultAvailability;
    },

    /** How many times this process has written the settings: a copy read before is stale. */
    writes: () => writes,

    saveAvailability: (availability: Availability, within?: Db) =>
      saveSettings({ availability: JSON.stringify(availability) }, within),

    feedTokenHash: async (within: Db = db): Promise<string | null> =>
      (await settings(within).executeTakeFirst())?.feed_token_hash ?? null,

    /** Replaces the feed's token (null revokes it). */
    setFeedTokenHash: (hash: string | null, within?: Db) =>
      saveSettings({ feed_token_hash: hash }, within),
  };
}
