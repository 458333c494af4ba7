import {
  type Availability,
  availabilitySchema,
  defaultAvailability,
} from "../../contract/bookings.ts";
import type { Db, Store } from "../db/store.ts";
import { jsonOf } from "../lib/json.ts";

/* The booking settings' one row: when calls can be booked, and the calendar feed's token. */
export function createBookingSettings({ db }: Store, clock: () => Date) {
  const settings = (within: Db = db) =>
    within.selectFrom("booking_settings").selectAll().where("id", "=", 1).executeTakeFirst();
  /** Writes the settings' row, made with the default availability if need be. */
  async function saveSettings(
    set: { availability?: string; feed_token_hash?: string | null },
    within: Db = db,
  ) {
    const at = clock().toISOString();
    await within
      .insertInto("booking_settings")
      .values({ id: 1, availability: JSON.stringify(defaultAvailability), ...set, updated_at: at })
      .onConflict((conflict) => conflict.column("id").doUpdateSet({ ...set, updated_at: at }))
      .execute();
  }
  return {
    async availability(): Promise<Availability> {
      const row = await settings();
      if (!row) return defaultAvailability;
      return jsonOf(row.availability, availabilitySchema) ?? defaultAvailability;
    },

    saveAvailability: (availability: Availability, within?: Db) =>
      saveSettings({ availability: JSON.stringify(availability) }, within),

    feedTokenHash: async (within: Db = db): Promise<string | null> =>
      (await settings(within))?.feed_token_hash ?? null,

    /** Replaces the feed's token (null revokes it). */
    setFeedTokenHash: (hash: string | null, within?: Db) =>
      saveSettings({ feed_token_hash: hash }, within),
  };
}
