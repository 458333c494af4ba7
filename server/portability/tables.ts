import { reactionTypes } from "../../contract/limits.ts";
import type { Database } from "../db/schema.ts";

/*
 * The tables a site owner owns, as `admin export` writes them and
 * `admin import --from export` reads them back (docs/export-schema.json,
 * docs/decisions/030-import-and-export.md). Left out on purpose: the live
 * events' journal (rebuilt as the site runs), sign-in links, sessions,
 * passkeys and challenges (credentials bound to one deployment), and the
 * short-lived records behind rate limits and one-time links.
 */

/** How a column's values are written: integers, text, ISO-8601 UTC times, or reals to 4 places. */
export type ColumnType = "int" | "text" | "time" | "real";

export type Column = {
  name: string;
  type: ColumnType;
  nullable?: boolean;
  /** The values the database's CHECK constraint allows. */
  oneOf?: readonly string[];
  /** The whole numbers the database's CHECK constraint allows (a flag's 0 and 1). */
  flag?: true;
};

/**
 * A key the database keeps unique besides the table's own key. `same`: a row
 * of the site with this key is the file's row already there (the same
 * address, the same edition). `taken`: another row cannot take it, so an
 * import refuses the file (a random token that must stay one row's).
 * `lower` compares those columns lower-cased, as the index does; a row with a
 * null in the key is not in the index.
 */
export type UniqueKey = {
  columns: readonly string[];
  role: "same" | "taken";
  lower?: readonly string[];
};

/**
 * A column holding the id of another table's row. `inFile`: the file must
 * hold that row (a foreign key, a reply's comment). Otherwise the row may be
 * gone from the exporting site (a ban's purged comment), and the id is kept
 * as it was where no row of this site has it.
 */
export type Reference = {
  column: string;
  /** The table referred to; "row_table" when the row names its table itself. */
  table: string;
  inFile?: true;
};

export type ExportTable = {
  name: keyof Database;
  /** Rows are written in the order of these columns, which also identify a row. */
  key: readonly string[];
  columns: readonly Column[];
  /** Only the rows a site owner owns, where the table holds others too. */
  only?: { column: string; equals: string };
  /** PostgreSQL identity column whose sequence must follow imported ids. */
  identity?: string;
  /** Columns of the table the export does not write, each with its reason. */
  columnsLeftOut?: Readonly<Record<string, string>>;
  /** The database's other unique keys (docs/decisions/030-import-and-export.md). */
  unique?: readonly UniqueKey[];
  references?: readonly Reference[];
  /** When a row was made: with its id, what tells it from another site's row of that id. */
  since?: string;
};

/** A table's rows as an import reads them from a file, checked and ready to write. */
export type ExportRows = {
  table: ExportTable;
  rows: Record<string, string | number | null>[];
  /** Each row's place in the file's array, for problems found later. */
  at: number[];
};

/** The version of the file's shape; an import refuses files of a later one. */
export const exportVersion = 1;
export const exportFormat = "engage-with-engineer-export";

const int = (name: string, nullable = false): Column => ({ name, type: "int", nullable });
const text = (name: string, nullable = false): Column => ({ name, type: "text", nullable });
const time = (name: string, nullable = false): Column => ({ name, type: "time", nullable });
const oneOf = (name: string, values: readonly string[]): Column => ({
  name,
  type: "text",
  oneOf: values,
});
const flag = (name: string): Column => ({ name, type: "int", flag: true });
const same = (...columns: string[]): UniqueKey => ({ columns, role: "same" });
const taken = (...columns: string[]): UniqueKey => ({ columns, role: "taken" });

const reactionColumns = (item: string): Column[] => [
  int("id"),
  text(item),
  oneOf("type", reactionTypes),
  text("user_name"),
  text("visitor_id"),
  time("created_at"),
];

/** In the order they are written and read back: a row's references come before it. */
export const exportTables: readonly ExportTable[] = [
  {
    name: "subscribers",
    key: ["id"],
    identity: "id",
    since: "created_at",
    unique: [{ columns: ["email"], role: "same", lower: ["email"] }, taken("unsubscribe_token")],
    columns: [
      int("id"),
      text("email"),
      text("unsubscribe_token"),
      time("created_at"),
      oneOf("status", ["pending", "confirmed"]),
      time("confirmed_at", true),
      time("confirmation_sent_at", true),
    ],
  },
  {
    name: "unsubscribed_tokens",
    key: ["token"],
    columns: [text("token"), time("unsubscribed_at")],
  },
  {
    name: "editions",
    key: ["id"],
    identity: "id",
    since: "created_at",
    unique: [same("slug")],
    columns: [
      int("id"),
      text("slug"),
      text("subject"),
      text("html"),
      text("text"),
      time("created_at"),
    ],
  },
  {
    // The editions' sending records: who was sent which edition, and when.
    name: "outbox",
    key: ["id"],
    identity: "id",
    only: { column: "kind", equals: "edition" },
    columnsLeftOut: { payload: "an edition's row has none: it holds other kinds' bodies" },
    since: "created_at",
    unique: [same("edition_id", "email")],
    references: [{ column: "edition_id", table: "editions", inFile: true }],
    columns: [
      int("id"),
      oneOf("kind", ["edition"]),
      int("edition_id"),
      text("email"),
      text("token", true),
      oneOf("status", ["queued", "sending", "sent", "failed", "cancelled"]),
      int("attempts"),
      time("next_attempt_at"),
      text("last_error", true),
      time("created_at"),
      time("sent_at", true),
      // What the mail drew afterwards ("bounce" or "complaint"): the edition's figures count it.
      text("feedback", true),
    ],
  },
  {
    // Addresses no mail goes to: moved with the list, so a new site does not mail them again.
    name: "suppressions",
    key: ["email"],
    columns: [
      text("email"),
      oneOf("reason", ["hard_bounce", "complaint", "soft_bounces"]),
      text("source"),
      text("detail", true),
      time("created_at"),
    ],
  },
  {
    // Temporary refusals of the last 30 days, which count towards a suppression.
    name: "soft_bounces",
    key: ["id"],
    identity: "id",
    since: "created_at",
    unique: [same("ref")],
    columns: [int("id"), text("email"), text("ref"), time("created_at")],
  },
  {
    // An edition's web links, counted as readers follow them: its figures move with it,
    // and an edition scheduled on the old site goes out with its links counted here.
    name: "edition_links",
    key: ["edition_id", "position"],
    references: [{ column: "edition_id", table: "editions", inFile: true }],
    columns: [int("edition_id"), int("position"), text("url"), int("clicks")],
  },
  {
    // Editions to go out later. A claim is one instance's lease, meaningless elsewhere;
    // one not queued whose time has come by the import is left out (read-export.ts).
    name: "edition_schedules",
    key: ["edition_id"],
    columnsLeftOut: { claimed_until: "the lease of the instance queueing it, bound to that site" },
    references: [{ column: "edition_id", table: "editions", inFile: true }],
    columns: [
      int("edition_id"),
      time("send_at"),
      time("created_at"),
      time("started_at", true),
      time("queued_at", true),
    ],
  },
  {
    name: "science_comments",
    key: ["id"],
    identity: "id",
    since: "created_at",
    references: [{ column: "parent_id", table: "science_comments", inFile: true }],
    columns: [
      int("id"),
      text("post_id"),
      int("parent_id", true),
      text("user_name"),
      text("content"),
      text("content_html", true),
      text("visitor_id"),
      oneOf("status", ["published", "pending", "spam"]),
      flag("by_owner"),
      text("ip_hash", true),
      time("created_at"),
      time("updated_at"),
      time("deleted_at", true),
    ],
  },
  {
    // Addresses readers left to be mailed replies, and the threads each follows.
    name: "reply_addresses",
    key: ["id"],
    identity: "id",
    since: "created_at",
    unique: [
      { columns: ["visitor_id", "email"], role: "same", lower: ["email"] },
      taken("unsubscribe_token"),
      taken("confirm_token_hash"),
    ],
    columns: [
      int("id"),
      text("visitor_id"),
      text("email"),
      oneOf("status", ["pending", "confirmed"]),
      text("confirm_token_hash", true),
      time("confirm_expires_at", true),
      time("confirmation_sent_at", true),
      text("unsubscribe_token"),
      time("created_at"),
      time("confirmed_at", true),
    ],
  },
  {
    name: "reply_watches",
    key: ["id"],
    identity: "id",
    since: "created_at",
    unique: [same("address_id", "thread_id"), taken("unsubscribe_token")],
    references: [
      { column: "address_id", table: "reply_addresses", inFile: true },
      { column: "thread_id", table: "science_comments" },
      { column: "comment_id", table: "science_comments" },
    ],
    columns: [
      int("id"),
      int("address_id"),
      int("thread_id"),
      int("comment_id"),
      text("unsubscribe_token"),
      time("window_ends_at", true),
      time("created_at"),
    ],
  },
  {
    name: "science_reactions",
    key: ["id"],
    identity: "id",
    since: "created_at",
    unique: [same("post_id", "type", "visitor_id")],
    columns: reactionColumns("post_id"),
  },
  {
    name: "mythology_reactions",
    key: ["id"],
    identity: "id",
    since: "created_at",
    unique: [same("story_id", "type", "visitor_id")],
    columns: reactionColumns("story_id"),
  },
  {
    name: "approved_visitors",
    key: ["visitor_id"],
    columns: [text("visitor_id"), time("approved_at")],
  },
  {
    name: "bans",
    key: ["id"],
    identity: "id",
    since: "created_at",
    references: [{ column: "comment_id", table: "science_comments" }],
    columns: [
      int("id"),
      text("visitor_id", true),
      text("ip_hash", true),
      int("comment_id", true),
      time("created_at"),
      time("expires_at", true),
      time("lifted_at", true),
    ],
  },
  {
    name: "enquiries",
    key: ["id"],
    identity: "id",
    since: "created_at",
    unique: [taken("deletion_token_hash")],
    columns: [
      int("id"),
      text("name"),
      text("email"),
      text("service"),
      text("organisation", true),
      text("timeline", true),
      text("message"),
      oneOf("status", ["new", "answered", "closed"]),
      flag("kept"),
      text("ip_hash"),
      text("thread_id"),
      text("deletion_token_hash"),
      time("created_at"),
      time("updated_at"),
    ],
  },
  {
    name: "enquiry_answers",
    key: ["id"],
    identity: "id",
    since: "created_at",
    references: [{ column: "enquiry_id", table: "enquiries", inFile: true }],
    columns: [int("id"), int("enquiry_id"), text("body"), time("created_at")],
  },
  {
    name: "bookings",
    key: ["id"],
    identity: "id",
    since: "created_at",
    unique: [taken("uid"), taken("token_hash")],
    columns: [
      int("id"),
      time("starts_at"),
      time("ends_at"),
      text("name"),
      text("email"),
      text("service"),
      text("note"),
      text("reader_zone"),
      oneOf("status", ["booked", "cancelled"]),
      text("uid"),
      int("sequence"),
      text("meeting_url", true),
      text("token_hash", true),
      text("visitor_id", true),
      text("ip_hash"),
      text("address_hash"),
      { name: "cancelled_by", type: "text", nullable: true, oneOf: ["reader", "owner"] },
      text("cancel_message", true),
      time("created_at"),
      time("updated_at"),
    ],
  },
  {
    name: "booking_settings",
    key: ["id"],
    columns: [int("id"), text("availability"), text("feed_token_hash", true), time("updated_at")],
  },
  {
    name: "owner_audit",
    key: ["id"],
    identity: "id",
    since: "at",
    columns: [
      int("id"),
      time("at"),
      text("session_id", true),
      text("action"),
      text("object", true),
    ],
  },
  {
    name: "spam_examples",
    key: ["id"],
    identity: "id",
    since: "created_at",
    references: [{ column: "comment_id", table: "science_comments" }],
    columns: [
      int("id"),
      int("comment_id", true),
      oneOf("label", ["spam", "ham"]),
      oneOf("source", ["approve", "publish", "reject", "spam", "ban"]),
      text("content"),
      text("features", true),
      time("created_at"),
    ],
  },
  {
    name: "spam_screening",
    key: ["comment_id"],
    references: [{ column: "comment_id", table: "science_comments" }],
    columns: [
      int("comment_id"),
      oneOf("outcome", ["published", "pending", "spam"]),
      text("reason", true),
      { name: "score", type: "real", nullable: true },
      time("created_at"),
    ],
  },
  {
    // The Fediverse writer of a comment that came from there: its handle, its
    // post's address, its picture. With it, the comment keeps its writer and
    // their later edit or deletion still reaches it.
    name: "fediverse_replies",
    key: ["comment_id"],
    unique: [same("note_id")],
    references: [{ column: "comment_id", table: "science_comments", inFile: true }],
    columns: [
      int("comment_id"),
      text("note_id"),
      text("actor_id"),
      text("handle"),
      text("name"),
      text("url"),
      text("avatar", true),
      time("created_at"),
    ],
  },
  {
    // Who follows the site's account: at the same address they still do.
    name: "fediverse_followers",
    key: ["actor_id"],
    columns: [
      text("actor_id"),
      text("handle"),
      text("name", true),
      text("inbox"),
      text("shared_inbox", true),
      text("follow_id"),
      time("created_at"),
    ],
  },
  {
    // The owner's blocks, as bans are the owner's.
    name: "fediverse_blocks",
    key: ["target"],
    columns: [text("target"), time("created_at")],
  },
  {
    // What followers were sent, so a moved site does not send it all again.
    name: "fediverse_published",
    key: ["path"],
    columns: [
      text("path"),
      text("digest"),
      time("published_at"),
      time("updated_at"),
      time("deleted_at", true),
    ],
  },
  {
    name: "fediverse_reactions",
    key: ["activity_id"],
    columns: [
      text("activity_id"),
      oneOf("kind", ["like", "announce"]),
      text("path"),
      text("actor_id"),
      time("created_at"),
    ],
  },
  {
    name: "webmentions",
    key: ["id"],
    identity: "id",
    since: "received_at",
    unique: [same("source", "target")],
    columns: [
      int("id"),
      text("source"),
      text("target"),
      text("path"),
      oneOf("status", ["unverified", "pending", "published"]),
      oneOf("kind", ["mention", "reply", "like", "repost"]),
      text("author_name", true),
      text("author_url", true),
      text("content", true),
      time("received_at"),
      time("verified_at", true),
    ],
  },
  {
    // The pages told of the site's links, once each: a moved site does not tell them again.
    name: "webmentions_sent",
    key: ["path", "target"],
    columns: [text("path"), text("target"), text("outcome"), time("sent_at")],
  },
  {
    name: "assistant_questions",
    key: ["id"],
    identity: "id",
    since: "asked_at",
    columns: [
      int("id"),
      text("question"),
      int("known"),
      text("page", true),
      text("service", true),
      int("written"),
      int("helpful", true),
      time("asked_at"),
    ],
  },
  {
    name: "import_sources",
    key: ["source", "source_id"],
    references: [{ column: "row_id", table: "row_table" }],
    columns: [
      text("source"),
      text("source_id"),
      text("row_table"),
      int("row_id"),
      time("imported_at"),
    ],
  },
];

/**
 * The tables an export leaves out, each with its reason: every other table
 * of the database is in `exportTables`, column for column (a test holds the
 * two lists against the migrated database).
 */
export const tablesLeftOut: Readonly<Record<string, string>> = {
  events: "the live events' journal, rebuilt as the site runs",
  owner_sign_in_links: "one-time sign-in links, bound to this deployment",
  owner_sessions: "console sessions, bound to this deployment",
  owner_passkeys: "passkeys, bound to this site's origin",
  owner_challenges: "passkey challenges, minutes long",
  confirmation_tokens: "newsletter confirmation links, which expire in 48 hours",
  confirmation_requests: "the hourly cap on confirmation mails",
  comment_action_tokens: "the one-time links of the owner's notification mails",
  spent_form_tokens: "form tokens already used, kept until they would expire",
  enquiry_acknowledgements: "the hourly cap on acknowledgement mails",
  reader_salts: "readership's salt of the day, deleted when the day ends",
  reader_visits: "readership counts, which identify nobody and start afresh on a new site",
  reader_views: "readership counts, which identify nobody and start afresh on a new site",
  reader_reads: "readership counts, which identify nobody and start afresh on a new site",
  reader_conversions: "readership counts, which identify nobody and start afresh on a new site",
  reader_days: "readership counts, which identify nobody and start afresh on a new site",
  reader_conversion_days: "readership counts, which identify nobody and start afresh on a new site",
  reader_rollups: "which days readership has rolled up, on this site",
  fediverse_kv: "the Fediverse framework's cache of remote actors and keys, fetched again",
  fediverse_queue: "Fediverse deliveries in flight",
  fediverse_keys: "the Fediverse account's private keys: credentials, made anew at first use",
  kysely_migration: "the database's record of its own migrations",
  kysely_migration_lock: "the database's record of its own migrations",
};

/**
 * Settings listed in an export for reference (configuration comes from the
 * environment): only these, never a secret, a password or a database URL.
 */
export const exportedSettings = [
  "SITE_URL",
  "SITE_OWNER_NAME",
  "CONTACT_EMAIL",
  "OWNER_EMAIL",
  "MAIL_FROM",
  "MODERATION",
  "NOTIFY_COMMENTS",
  "HOLD_LINKS_FROM_NEW",
  "COMMENT_MIN_SECONDS",
  "COMMENT_MAX_LINKS",
  "COMMENT_DUPLICATE_MINUTES",
  "MAIL_RATE_PER_MINUTE",
  "ENQUIRIES_PER_HOUR",
  "ENQUIRY_RETENTION_DAYS",
  "BOOKING_TIMEZONE",
  "BOOKINGS_PER_HOUR",
  "BOOKING_PENDING_MAX",
  "BOOKING_RETENTION_DAYS",
] as const;

/** A unique key's value in a row, as the database's index compares it; null when the index leaves the row out. */
export function uniqueValue(
  key: Pick<UniqueKey, "columns" | "lower">,
  row: Readonly<Record<string, unknown>>,
): string | null {
  const values: unknown[] = [];
  for (const column of key.columns) {
    const value = row[column];
    if (value === null || value === undefined) return null;
    values.push(key.lower?.includes(column) ? String(value).toLowerCase() : value);
  }
  return JSON.stringify(values);
}

/** The table's own key, and its other unique keys. */
export const uniqueKeys = (table: ExportTable): UniqueKey[] => [
  { columns: table.key, role: "same" },
  ...(table.unique ?? []),
];

/** What a problem about a key names: the column, or the row for a key of several. */
export const keyPlace = (where: string, key: Pick<UniqueKey, "columns">) =>
  key.columns.length === 1 ? `${where}.${key.columns[0]}` : where;

/** A row as one line of the file: its columns in the table's order, values as the export writes them. */
export function exportRow(table: ExportTable, row: Readonly<Record<string, unknown>>): string {
  const out: Record<string, string | number | null> = {};
  for (const column of table.columns) out[column.name] = exportValue(column, row[column.name]);
  return JSON.stringify(out);
}

/** A stored value as the export writes it, the same from SQLite and PostgreSQL. */
export function exportValue(column: Column, value: unknown): string | number | null {
  if (value === null || value === undefined) return null;
  switch (column.type) {
    case "int":
      return Number(value);
    case "real":
      // PostgreSQL keeps a real in 4 bytes, SQLite in 8: four places survive both.
      return Math.round(Number(value) * 10_000) / 10_000;
    case "time":
      return value instanceof Date ? value.toISOString() : new Date(String(value)).toISOString();
    default:
      return String(value);
  }
}
