import { reactionTypes } from "../../contract/limits.ts";
import type { Database } from "../db/schema.ts";
import { type Column, columns, type UniqueKey } from "./columns.ts";

/*
 * The tables a site owner owns, as `admin export` writes them and
 * `admin import --from export` reads them back (docs/export-schema.json,
 * docs/decisions/030-import-and-export.md); `tablesLeftOut` says why the rest are not.
 */

/**
 * A column holding the id of another table's row. `inFile`: the file must hold that row (a
 * foreign key, a reply's comment). Otherwise the row may be gone from the exporting site (a
 * ban's purged comment), and the id is kept as it was where no row of this site has it.
 */
type Reference = {
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
  /** Its columns in a version-1 file, which kept the address (server/portability/version-1.ts). */
  version1?: readonly Column[];
};

/** A table's rows as an import reads them from a file, checked and ready to write. */
export type ExportRows = {
  table: ExportTable;
  rows: Record<string, string | number | null>[];
  /** Each row's place in the file's array, for problems found later. */
  at: number[];
};

/** A row by its place in the file, and its id where it has one. */
export const rowName = (table: ExportTable, at: number, row: Record<string, unknown>) =>
  `tables.${table.name}[${at}]${table.identity ? ` (id ${String(row[table.identity])})` : ""}`;

/**
 * The version of the file's shape; an import refuses files of a later one.
 * 2: suppressions and soft_bounces keep a digest, not the address (version 1's are converted).
 * 3: the standing links are kept as seeds, not tokens (server/portability/standing-links.ts).
 * 4: an edition's copy to a removed reader keeps the digest of the mailbox (`email_hash`).
 * 5: a booking says how many of its moves were the owner's (`owner_moves`; 0 when absent).
 */
export const exportVersion = 5;
export const exportFormat = "engage-with-engineer-export";

/** Why an address's digest is not written: the importing site makes it with its own secret. */
const heldDigest = "a digest under the site's secret: the importing site makes its own";
/** Why a network's digest is not written: only the hourly limits per network read it. */
const networkDigest =
  "a digest under the site's secret, read only by the hourly limits per network";

const same = (...columns: string[]): UniqueKey => ({ columns, role: "same" });
const taken = (...columns: string[]): UniqueKey => ({ columns, role: "taken" });
/** A table whose rows have an id and a creation time. */
const byId = { key: ["id"], identity: "id", since: "created_at" } as const;

const reactionColumns = (item: string) =>
  columns(
    `id:int ${item}<key type=${reactionTypes.join("|")} user_name visitor_id<key created_at:time`,
  );

/** In the order they are written and read back: a row's references come before it. */
export const exportTables: readonly ExportTable[] = [
  {
    name: "subscribers",
    ...byId,
    unique: [{ columns: ["email"], role: "same", lower: ["email"] }, taken("unsubscribe_token")],
    columnsLeftOut: { email_hash: heldDigest },
    columns:
      columns(`id:int email<address unsubscribe_token<key created_at:time status=pending|confirmed
      confirmed_at:time? confirmation_sent_at:time?`),
  },
  {
    name: "unsubscribed_tokens",
    key: ["token"],
    columns: columns("token<key unsubscribed_at:time"),
  },
  {
    name: "editions",
    ...byId,
    unique: [same("slug")],
    columns: columns("id:int slug<key subject html text created_at:time"),
  },
  {
    // The editions' sending records: who was sent which edition, and when.
    name: "outbox",
    ...byId,
    only: { column: "kind", equals: "edition" },
    columnsLeftOut: {
      payload: "an edition's row has none: it holds other kinds' bodies",
      series: "an edition's row has none: it orders other kinds' mails",
    },
    unique: [same("edition_id", "email")],
    references: [{ column: "edition_id", table: "editions", inFile: true }],
    // What the mail drew afterwards ("bounce" or "complaint"): the edition's figures count it.
    // A removed reader's copy keeps the digest of the mailbox instead of the address (server/
    // outbox/erased-copies.ts): with the same secret, the new site does not send it them again.
    columns: columns(`id:int kind=edition edition_id:int email<address? email_hash<key? token<key?
      status=queued|sending|sent|failed|cancelled attempts:int next_attempt_at:time last_error?
      created_at:time sent_at:time? feedback?`),
  },
  {
    // Addresses no mail goes to, as keyed digests: with the same secret, moved with
    // the list, a new site does not mail them again.
    name: "suppressions",
    key: ["email_hash"],
    columns: columns(
      `email_hash<key domain reason=hard_bounce|complaint|soft_bounces source detail? created_at:time`,
    ),
    version1: columns(
      `email reason=hard_bounce|complaint|soft_bounces source detail? created_at:time`,
    ),
  },
  {
    // Mailboxes whose readers stopped all reply mails, as keyed digests: with the
    // same secret, a moved site sends them no confirmation mail either.
    name: "reply_stops",
    key: ["mailbox_hash"],
    columns: columns("mailbox_hash<key created_at:time"),
  },
  {
    // Temporary refusals of the last 30 days, which count towards a suppression.
    name: "soft_bounces",
    ...byId,
    unique: [same("ref")],
    columns: columns("id:int email_hash<key ref<address created_at:time"),
    version1: columns("id:int email ref<address created_at:time"),
  },
  {
    // An edition's web links, counted as readers follow them: its figures move with it,
    // and an edition scheduled on the old site goes out with its links counted here.
    name: "edition_links",
    key: ["edition_id", "position"],
    references: [{ column: "edition_id", table: "editions", inFile: true }],
    columns: columns("edition_id:int position:int url clicks:int"),
  },
  {
    // Editions to go out later. A claim is one instance's lease, meaningless elsewhere;
    // one not queued whose time has come by the import is left out (read-export.ts).
    name: "edition_schedules",
    key: ["edition_id"],
    columnsLeftOut: { claimed_until: "the lease of the instance queueing it, bound to that site" },
    references: [{ column: "edition_id", table: "editions", inFile: true }],
    columns: columns(
      `edition_id:int send_at:time created_at:time started_at:time? queued_at:time?`,
    ),
  },
  {
    name: "science_comments",
    ...byId,
    references: [{ column: "parent_id", table: "science_comments", inFile: true }],
    columns:
      columns(`id:int post_id<key parent_id:int? user_name content content_html? visitor_id<key
      status=published|pending|spam by_owner:flag ip_hash<key? created_at:time updated_at:time
      deleted_at:time?`),
  },
  {
    // Addresses readers left to be mailed replies, and the threads each follows.
    name: "reply_addresses",
    ...byId,
    unique: [
      { columns: ["visitor_id", "email"], role: "same", lower: ["email"] },
      taken("unsubscribe_token"),
      taken("confirm_token_hash"),
    ],
    columnsLeftOut: { email_hash: heldDigest },
    columns:
      columns(`id:int visitor_id<key email<address status=pending|confirmed confirm_token_hash<key?
      confirm_expires_at:time? confirmation_sent_at:time? unsubscribe_token<key created_at:time
      confirmed_at:time?`),
  },
  {
    name: "reply_watches",
    ...byId,
    unique: [same("address_id", "thread_id"), taken("unsubscribe_token")],
    references: [
      { column: "address_id", table: "reply_addresses", inFile: true },
      { column: "thread_id", table: "science_comments" },
      { column: "comment_id", table: "science_comments" },
    ],
    columns: columns(`id:int address_id:int thread_id:int comment_id:int unsubscribe_token<key
      window_ends_at:time? created_at:time`),
  },
  {
    name: "science_reactions",
    ...byId,
    unique: [same("post_id", "type", "visitor_id")],
    columns: reactionColumns("post_id"),
  },
  {
    name: "mythology_reactions",
    ...byId,
    unique: [same("story_id", "type", "visitor_id")],
    columns: reactionColumns("story_id"),
  },
  {
    name: "approved_visitors",
    key: ["visitor_id"],
    columns: columns("visitor_id<key approved_at:time"),
  },
  {
    name: "bans",
    ...byId,
    references: [{ column: "comment_id", table: "science_comments" }],
    columns:
      columns(`id:int visitor_id<key? ip_hash<key? comment_id:int? created_at:time expires_at:time?
      lifted_at:time?`),
  },
  {
    name: "enquiries",
    ...byId,
    unique: [taken("deletion_token_hash")],
    columnsLeftOut: { network_hash: networkDigest },
    columns: columns(`id:int name email<address service organisation? timeline? message
      status=new|answered|closed kept:flag ip_hash<key thread_id deletion_token_hash<key zone?
      created_at:time updated_at:time`),
  },
  {
    name: "enquiry_answers",
    ...byId,
    references: [{ column: "enquiry_id", table: "enquiries", inFile: true }],
    columns: columns("id:int enquiry_id:int body created_at:time"),
  },
  {
    name: "bookings",
    ...byId,
    columnsLeftOut: { network_hash: networkDigest },
    // A time is booked once (the partial index bookings_one_per_time).
    unique: [
      taken("uid"),
      taken("token_hash"),
      { columns: ["starts_at"], role: "taken", only: { column: "status", equals: "booked" } },
    ],
    columns: columns(`id:int starts_at:time ends_at:time name email service note reader_zone
      status=booked|cancelled uid<address sequence:int meeting_url? token_hash<key? visitor_id<key?
      ip_hash<key address_hash<key cancelled_by=reader|owner? cancel_message? created_at:time updated_at:time
      owner_moves:int=0 undeliverable:int=0`),
  },
  {
    name: "booking_settings",
    key: ["id"],
    columns: columns("id:one availability feed_token_hash? updated_at:time"),
  },
  {
    name: "owner_audit",
    ...byId,
    since: "at",
    columns: columns("id:int at:time session_id? action object?"),
  },
  {
    name: "spam_examples",
    ...byId,
    references: [{ column: "comment_id", table: "science_comments" }],
    columns: columns(`id:int comment_id:int? label=spam|ham source=approve|publish|reject|spam|ban
      content features? created_at:time`),
  },
  {
    name: "spam_screening",
    key: ["comment_id"],
    references: [{ column: "comment_id", table: "science_comments" }],
    columns: columns(`comment_id:int outcome=published|pending|spam reason? score:real?
      created_at:time`),
  },
  {
    // The Fediverse writer of a comment that came from there: its handle, its
    // post's address, its picture. With it, the comment keeps its writer and
    // their later edit or deletion still reaches it.
    name: "fediverse_replies",
    key: ["comment_id"],
    unique: [same("note_id")],
    references: [{ column: "comment_id", table: "science_comments", inFile: true }],
    columns: columns(
      "comment_id:int note_id<link actor_id<link handle name url avatar? created_at:time",
    ),
  },
  {
    // Who follows the site's account: at the same address they still do.
    name: "fediverse_followers",
    key: ["actor_id"],
    columns: columns("actor_id<link handle name? inbox shared_inbox? follow_id created_at:time"),
  },
  {
    // The owner's blocks, as bans are the owner's.
    name: "fediverse_blocks",
    key: ["target"],
    columns: columns("target<link created_at:time"),
  },
  {
    // What followers were sent, so a moved site does not send it all again.
    name: "fediverse_published",
    key: ["path"],
    columns: columns("path<page digest published_at:time updated_at:time deleted_at:time?"),
  },
  {
    name: "fediverse_reactions",
    key: ["activity_id"],
    columns: columns("activity_id<link kind=like|announce path<page actor_id<link created_at:time"),
  },
  {
    name: "webmentions",
    ...byId,
    since: "received_at",
    unique: [same("source", "target")],
    columns: columns(`id:int source<link target<page path<page status=unverified|pending|published
      kind=mention|reply|like|repost author_name? author_url? content? received_at:time
      verified_at:time?`),
  },
  {
    // The pages told of the site's links, once each: a moved site does not tell them again.
    name: "webmentions_sent",
    key: ["path", "target"],
    columns: columns("path<page target<link outcome sent_at:time"),
  },
  {
    name: "assistant_questions",
    ...byId,
    since: "asked_at",
    columns: columns(`id:int question known:flag page? service? written:flag helpful:flag?
      asked_at:time`),
  },
  {
    name: "import_sources",
    key: ["source", "source_id"],
    references: [{ column: "row_id", table: "row_table" }],
    columns: columns("source<key source_id<address row_table row_id:int imported_at:time"),
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
  sns_messages: "SNS messages already taken, kept while their signature is accepted",
  enquiry_acknowledgements: "the cap on acknowledgement mails, one in eight hours",
  bookings_made: "the bookings' limits of an hour and a day: digests under the secret, kept a day",
  reader_salts: "readership's salt of the day, deleted when the day ends",
  reader_visits: "readership counts, which identify nobody and start afresh on a new site",
  reader_views: "readership counts, which identify nobody and start afresh on a new site",
  reader_reads: "readership counts, which identify nobody and start afresh on a new site",
  reader_now: "who is reading now: the last 30 minutes' readers, deleted as they pass",
  reader_days: "readership counts, which identify nobody and start afresh on a new site",
  reader_conversion_days: "readership counts, which identify nobody and start afresh on a new site",
  reader_rollups: "which days readership has rolled up, on this site",
  fediverse_kv: "the Fediverse framework's cache of remote actors and keys, fetched again",
  fediverse_queue: "Fediverse deliveries in flight",
  outbox_marks: "bounces' marks for mails in flight, put on their rows as each send ends",
  fediverse_given_up: "the Health screen's record of Fediverse messages given up, kept 30 days",
  fediverse_keys: "the Fediverse account's private keys: credentials, made anew at first use",
  kysely_migration: "the database's record of its own migrations",
  kysely_migration_lock: "the database's record of its own migrations",
};

/**
 * Settings listed in an export for reference (configuration comes from the
 * environment): only these, never a secret, a password or a database URL.
 */
export const exportedSettings = `
  SITE_URL SITE_OWNER_NAME CONTACT_EMAIL OWNER_EMAIL MAIL_FROM MODERATION NOTIFY_COMMENTS
  HOLD_LINKS_FROM_NEW COMMENT_MIN_SECONDS COMMENT_MAX_LINKS COMMENT_DUPLICATE_MINUTES
  MAIL_RATE_PER_MINUTE ENQUIRIES_PER_HOUR ENQUIRY_RETENTION_DAYS BOOKING_TIMEZONE
  BOOKINGS_PER_HOUR BOOKING_PENDING_MAX BOOKING_RETENTION_DAYS
`
  .trim()
  .split(/\s+/);

/** The table's own key, and its other unique keys. */
export const uniqueKeys = (table: ExportTable): UniqueKey[] => [
  { columns: table.key, role: "same" },
  ...(table.unique ?? []),
];
