import type { Generated } from "kysely";
import type { Defaulted, Maybe, Timestamp } from "./columns.ts";

/** A call a reader booked (docs/product.md, "Book a call"): personal data, never public. */
export type BookingsTable = {
  id: Generated<number>;
  starts_at: Timestamp;
  ends_at: Timestamp;
  name: string;
  email: string;
  /** A service's id, or "other". */
  service: string;
  note: string;
  /** The reader's IANA zone, for their mails. */
  reader_zone: string;
  status: Defaulted<"booked" | "cancelled">;
  /** The invitation's UID; `sequence` rises with each change. */
  uid: string;
  sequence: Defaulted<number>;
  /** How many of the changes `sequence` counts were the owner's moves (migration 059). */
  owner_moves: Defaulted<number>;
  meeting_url: Maybe<string>;
  /** SHA-256 of the token of the reader's cancel and reschedule links; null once spent. */
  token_hash: Maybe<string>;
  /** The browser that booked, for "Your data"; null without a visitor cookie. */
  visitor_id: Maybe<string>;
  ip_hash: string;
  /** HMAC of that address's network, for the per-network limits; null on bookings older than it. */
  network_hash: Maybe<string>;
  /** HMAC of the reader's mailbox, for the per-address limits. */
  address_hash: string;
  cancelled_by: Maybe<"reader" | "owner">;
  cancel_message: Maybe<string>;
  /** 1 when the call was released because its invitation hard-bounced (migration 063). */
  undeliverable: Defaulted<number>;
  created_at: Timestamp;
  updated_at: Timestamp;
};

/** Booked calls and the owner's settings for them (server/bookings/). */
export type BookingTables = {
  bookings: BookingsTable;
  /**
   * A booking made, as its hourly limits count it (migration 060): keyed digests and a time,
   * which name nobody, kept the hour they are counted and left by the booking's erasure.
   */
  bookings_made: {
    address_hash: string;
    ip_hash: string;
    network_hash: Maybe<string>;
    made_at: Timestamp;
  };
  /** The owner's booking settings: one row (id 1). */
  booking_settings: {
    id: number;
    /** JSON of contract/bookings.ts's availability. */
    availability: string;
    /** SHA-256 of the calendar feed's token; null when there is none. */
    feed_token_hash: Maybe<string>;
    updated_at: Timestamp;
  };
};
