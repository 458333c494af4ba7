import type { ColumnType, Generated } from "kysely";

/**
 * Timestamps are written as ISO-8601 UTC strings on both databases; SQLite
 * returns them as written, PostgreSQL (timestamptz) as `Date`.
 */
type Timestamp = ColumnType<Date | string, string, string>;

/** `pg` returns int8 as a string; SQLite returns numbers. */
type BigId = ColumnType<number | string, never, never>;

export type SubscribersTable = {
  id: Generated<number>;
  email: string;
  unsubscribe_token: string;
  created_at: Timestamp;
};

/** Tokens of removed subscriptions, so a second visit of the link is still answered. */
export type UnsubscribedTokensTable = {
  token: string;
  unsubscribed_at: Timestamp;
};

export type ReactionRow = {
  id: Generated<number>;
  type: string;
  user_name: string;
  visitor_id: string;
  created_at: Timestamp;
};

export type MythologyReactionsTable = ReactionRow & { story_id: string };
export type ScienceReactionsTable = ReactionRow & { post_id: string };

export type ScienceCommentsTable = {
  id: Generated<number>;
  post_id: string;
  content: string;
  user_name: string;
  visitor_id: string;
  created_at: Timestamp;
  updated_at: Timestamp;
};

/** The journal of live events: replay for reconnecting clients and other instances. */
export type EventsTable = {
  id: BigId;
  topic: string;
  type: string;
  data: string;
  created_at: Timestamp;
};

export type Database = {
  subscribers: SubscribersTable;
  unsubscribed_tokens: UnsubscribedTokensTable;
  mythology_reactions: MythologyReactionsTable;
  science_reactions: ScienceReactionsTable;
  science_comments: ScienceCommentsTable;
  events: EventsTable;
};

export type DatabaseKind = "sqlite" | "postgres";
