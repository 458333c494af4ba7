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
  status: ColumnType<SubscriberStatus, SubscriberStatus | undefined, SubscriberStatus>;
  confirmed_at: ColumnType<Date | string | null, string | null | undefined, string | null>;
  confirmation_sent_at: ColumnType<Date | string | null, string | null | undefined, string | null>;
};

export type SubscriberStatus = "pending" | "confirmed";

/** Double opt-in links: SHA-256 of the token, single use, with an expiry. */
export type ConfirmationTokensTable = {
  token_hash: string;
  subscriber_id: number;
  expires_at: Timestamp;
  used_at: ColumnType<Date | string | null, string | null | undefined, string | null>;
};

/** Confirmation mails caused, by client IP address, for the hourly cap; kept one hour. */
export type ConfirmationRequestsTable = {
  id: BigId;
  ip: string;
  created_at: Timestamp;
};

export type EditionsTable = {
  id: Generated<number>;
  slug: string;
  subject: string;
  html: string;
  text: string;
  created_at: Timestamp;
};

/** An edition's links, each with how many times it was followed, and no record of who. */
export type EditionLinksTable = {
  edition_id: number;
  position: number;
  url: string;
  clicks: ColumnType<number, number | undefined, number>;
};

/** An edition sent later, until every copy is queued (docs/mail.md, "Sending later"). */
export type EditionSchedulesTable = {
  edition_id: number;
  send_at: Timestamp;
  created_at: Timestamp;
  /** When an instance first claimed it: from then it cannot be cancelled. */
  started_at: Timestamp | null;
  /** The claiming instance's lease, renewed while it queues. */
  claimed_until: Timestamp | null;
  queued_at: Timestamp | null;
};

export type SuppressionReason = "hard_bounce" | "complaint" | "soft_bounces";

/** Addresses nothing is mailed to, and why (docs/mail.md, "Bounces and complaints"). */
export type SuppressionsTable = {
  /** Lower case. */
  email: string;
  reason: SuppressionReason;
  /** What told us: smtp, mailbox, ses or postmark. */
  source: string;
  /** The receiving server's words, when there are some. */
  detail: string | null;
  created_at: Timestamp;
};

/** Temporary failures reported for an address, kept 30 days: three suppress it. */
export type SoftBouncesTable = {
  id: BigId;
  email: string;
  ref: string;
  created_at: Timestamp;
};

export type OutboxStatus = "queued" | "sending" | "sent" | "failed" | "cancelled";

/**
 * What an outbox row carries: the newsletter's mails (a confirmation, one
 * edition to one recipient), the owner's mail about one new comment, one
 * comment for the hourly digest, or one webhook call
 * (docs/decisions/011-owner-notifications.md). This type is the one list of
 * kinds: rows written to the outbox are checked against it when the code is
 * type-checked, and the database takes any text there, so a new kind of mail
 * is a name here and a composer, with no migration
 * (docs/decisions/040-outbox-kinds-in-typescript.md).
 */
export type OutboxKind =
  | "confirmation"
  | "edition"
  | "comment_notice"
  | "comment_digest"
  | "webhook"
  | "enquiry_notice"
  | "enquiry_ack"
  | "enquiry_answer"
  | "reply_confirmation"
  | "reply_notice"
  | "reply_digest"
  | "booking_invitation"
  | "booking_cancellation"
  | "booking_reminder";

/** One row per message to send. */
export type OutboxTable = {
  id: BigId;
  kind: OutboxKind;
  edition_id: number | null;
  /** The recipient; null for a webhook call. */
  email: ColumnType<string | null, string | null | undefined, string | null>;
  token: string | null;
  /** JSON: the comment a notification is about, or a webhook's body. */
  payload: ColumnType<string | null, string | null | undefined, string | null>;
  status: OutboxStatus;
  attempts: ColumnType<number, number | undefined, number>;
  next_attempt_at: Timestamp;
  last_error: string | null;
  created_at: Timestamp;
  sent_at: ColumnType<Date | string | null, string | null | undefined, string | null>;
  /** What the mail drew afterwards: a bounce or a complaint (an edition's figures). */
  feedback: ColumnType<
    "bounce" | "complaint" | null,
    "bounce" | "complaint" | null | undefined,
    "bounce" | "complaint" | null
  >;
};

export type CommentAction = "approve" | "delete";

/**
 * The owner's one-time links in notification mails: SHA-256 of the token, one
 * action on one comment, single use, with an expiry.
 */
export type CommentActionTokensTable = {
  token_hash: string;
  comment_id: number;
  action: CommentAction;
  expires_at: Timestamp;
  used_at: ColumnType<Date | string | null, string | null | undefined, string | null>;
  created_at: Timestamp;
};

/** Form tokens already used for a submission, until they would have expired. */
export type SpentFormTokensTable = {
  token: string;
  expires_at: Timestamp;
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

/** Published for everyone, held for the owner's approval, or caught by the honeypot (docs/decisions/010-moderation-and-spam.md). */
export type CommentStatus = "published" | "pending" | "spam";

export type ScienceCommentsTable = {
  id: Generated<number>;
  post_id: string;
  content: string;
  user_name: string;
  visitor_id: string;
  created_at: Timestamp;
  updated_at: Timestamp;
  status: ColumnType<CommentStatus, CommentStatus | undefined, CommentStatus>;
  /** HMAC of the address the comment was sent from; null on comments older than bans. */
  ip_hash: ColumnType<string | null, string | null | undefined, string | null>;
  /** 1 on the owner's own comments, written from a console session (docs/decisions/016-owner-voice.md). */
  by_owner: ColumnType<number, number | undefined, number>;
  /** The comment's Markdown as HTML, rendered when it was written; null on comments older than Markdown. */
  content_html: ColumnType<string | null, string | null | undefined, string | null>;
  /** The comment this one answers (always one that starts a thread); null when it starts one. */
  parent_id: ColumnType<number | null, number | null | undefined, number | null>;
  /** Set when a comment with replies was deleted: its place stays, its name and text are gone. */
  deleted_at: ColumnType<Date | string | null, string | null | undefined, string | null>;
};

/** Visitors whose comments the owner approved: under MODERATION=first they are no longer held. */
export type ApprovedVisitorsTable = {
  visitor_id: string;
  approved_at: Timestamp;
};

/** The owner's bans: a visitor credential and the HMAC of an address, until `expires_at` (null: no end) or lifted. */
export type BansTable = {
  id: Generated<number>;
  visitor_id: string | null;
  ip_hash: string | null;
  comment_id: number | null;
  created_at: Timestamp;
  expires_at: ColumnType<Date | string | null, string | null | undefined, string | null>;
  lifted_at: ColumnType<Date | string | null, string | null | undefined, string | null>;
};

/** The journal of live events: replay for reconnecting clients and other instances. */
export type EventsTable = {
  id: BigId;
  topic: string;
  type: string;
  data: string;
  created_at: Timestamp;
};

/** One-time sign-in links of the owner's console: SHA-256 of the token, 10 minutes, single use. */
export type OwnerSignInLinksTable = {
  token_hash: string;
  /** "cli" or "mail": where the link was handed out. */
  channel: string;
  created_at: Timestamp;
  expires_at: Timestamp;
  used_at: ColumnType<Date | string | null, string | null | undefined, string | null>;
};

/** The owner's sessions: the cookie's token is kept only as its SHA-256. */
export type OwnerSessionsTable = {
  id: string;
  token_hash: string;
  method: "link" | "passkey";
  created_at: Timestamp;
  last_seen_at: Timestamp;
  revoked_at: ColumnType<Date | string | null, string | null | undefined, string | null>;
  /** "Firefox on Linux": null for sessions opened before devices were recorded. */
  device: ColumnType<string | null, string | null | undefined, string | null>;
};

/** WebAuthn credentials the owner registered from a session. */
export type OwnerPasskeysTable = {
  id: string;
  name: string;
  public_key: string;
  counter: ColumnType<number | string, number, number>;
  transports: string;
  created_at: Timestamp;
  last_used_at: ColumnType<Date | string | null, string | null | undefined, string | null>;
};

/** Outstanding WebAuthn challenges, each usable once for a few minutes. */
export type OwnerChallengesTable = {
  challenge: string;
  purpose: "registration" | "authentication";
  session_id: string | null;
  expires_at: Timestamp;
};

/** What the owner did, from which session, to what. */
export type OwnerAuditTable = {
  id: BigId;
  at: Timestamp;
  session_id: string | null;
  action: string;
  object: string | null;
};

/** What the spam filter learns from: the owner's decisions on comments (docs/decisions/025-spam-that-learns.md). */
export type SpamExamplesTable = {
  id: BigId;
  /** The comment decided on; it may since have been deleted. */
  comment_id: number | null;
  label: "spam" | "ham";
  /** The owner's action: approve, publish, reject, spam or ban. */
  source: string;
  /** The comment's text; emptied when its writer deletes or edits it. */
  content: string;
  /**
   * For a comment marked as junk, what the filter learnt from it, as JSON
   * (`SealedExample`): kept when the text goes, so the decision outlives it.
   */
  features: string | null;
  created_at: Timestamp;
};

/** What the spam filter did with each new comment, and why; no text. */
export type SpamScreeningTable = {
  comment_id: number;
  outcome: "published" | "pending" | "spam";
  /** Why it was held or stored as spam: score, stranger-link, learned, honeypot or moderation. */
  reason: string | null;
  score: number | null;
  created_at: Timestamp;
};

export type EnquiryStatus = "new" | "answered" | "closed";

/** What a reader asked for from /services (docs/product.md, "Enquiries"): personal data, never public. */
export type EnquiriesTable = {
  id: Generated<number>;
  name: string;
  email: string;
  /** A service's id, or "other". */
  service: string;
  organisation: string | null;
  timeline: string | null;
  message: string;
  status: ColumnType<EnquiryStatus, EnquiryStatus | undefined, EnquiryStatus>;
  /** 1 when the owner keeps it past the retention period. */
  kept: ColumnType<number, number | undefined, number>;
  /** HMAC of the address it was sent from, for the per-address limit. */
  ip_hash: string;
  /** The Message-ID of its acknowledgement; the owner's answers reply to it. */
  thread_id: string;
  /** SHA-256 of the token in the sender's deletion link. */
  deletion_token_hash: string;
  created_at: Timestamp;
  updated_at: Timestamp;
};

/** The owner's answers, as mailed. */
export type EnquiryAnswersTable = {
  id: Generated<number>;
  enquiry_id: number;
  body: string;
  created_at: Timestamp;
};

/** When an address (as an HMAC) was last sent an acknowledgement: at most one an hour. */
export type EnquiryAcknowledgementsTable = {
  address_hash: string;
  sent_at: Timestamp;
};

export type BookingStatus = "booked" | "cancelled";
type NullableText = ColumnType<string | null, string | null | undefined, string | null>;

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
  status: ColumnType<BookingStatus, BookingStatus | undefined, BookingStatus>;
  /** The invitation's UID; `sequence` rises with each change. */
  uid: string;
  sequence: ColumnType<number, number | undefined, number>;
  meeting_url: NullableText;
  /** SHA-256 of the token of the reader's cancel and reschedule links; null once spent. */
  token_hash: NullableText;
  /** The browser that booked, for "Your data"; null without a visitor cookie. */
  visitor_id: NullableText;
  ip_hash: string;
  /** HMAC of the reader's mailbox, for the per-address limits. */
  address_hash: string;
  cancelled_by: ColumnType<
    "reader" | "owner" | null,
    "reader" | "owner" | null | undefined,
    "reader" | "owner" | null
  >;
  cancel_message: NullableText;
  created_at: Timestamp;
  updated_at: Timestamp;
};

/** The owner's booking settings: one row (id 1). */
export type BookingSettingsTable = {
  id: number;
  /** JSON of contract/bookings.ts's availability. */
  availability: string;
  /** SHA-256 of the calendar feed's token; null when there is none. */
  feed_token_hash: NullableText;
  updated_at: Timestamp;
};

/** What `admin import` brought in, by its source's own id, and the row it became. */
export type ImportSourcesTable = {
  source: string;
  source_id: string;
  row_table: string;
  row_id: number;
  imported_at: Timestamp;
};

/** An address a reader left to be mailed replies (docs/product.md, "Reply mails"): personal data, never public. */
export type ReplyAddressesTable = {
  id: Generated<number>;
  visitor_id: string;
  email: string;
  status: ColumnType<
    "pending" | "confirmed",
    "pending" | "confirmed" | undefined,
    "pending" | "confirmed"
  >;
  /** SHA-256 of the confirmation link's token; null once confirmed. */
  confirm_token_hash: string | null;
  confirm_expires_at: ColumnType<Date | string | null, string | null | undefined, string | null>;
  confirmation_sent_at: ColumnType<Date | string | null, string | null | undefined, string | null>;
  /** The "all replies" unsubscribe link's token. */
  unsubscribe_token: string;
  created_at: Timestamp;
  confirmed_at: ColumnType<Date | string | null, string | null | undefined, string | null>;
};

/** A thread an address follows, because its reader wrote in it. */
export type ReplyWatchesTable = {
  id: Generated<number>;
  address_id: number;
  /** The comment that starts the thread. */
  thread_id: number;
  /** The reader's comment that asked for it; the watch goes with it. */
  comment_id: number;
  /** The "this thread" unsubscribe link's token. */
  unsubscribe_token: string;
  /** Until then, further replies in the thread wait for one digest. */
  window_ends_at: ColumnType<Date | string | null, string | null | undefined, string | null>;
  created_at: Timestamp;
};

/** Fedify's key-value store (server/fediverse/kv-store.ts): JSON values, some with an expiry. */
export type FediverseKvTable = {
  key: string;
  value: string;
  expires_at: ColumnType<Date | string | null, string | null | undefined, string | null>;
};

/** Fedify's message queue (server/fediverse/message-queue.ts): deliveries and inbox work. */
export type FediverseQueueTable = {
  id: BigId;
  message: string;
  ordering_key: string | null;
  due_at: Timestamp;
  /** Taken by a worker until then; a worker that died leaves it due again. */
  taken_until: ColumnType<Date | string | null, string | null | undefined, string | null>;
  created_at: Timestamp;
};

/** The site actor's key pairs, as JWK: RSASSA-PKCS1-v1_5 for HTTP signatures, Ed25519 for proofs. */
export type FediverseKeysTable = {
  algorithm: string;
  private_jwk: string;
  public_jwk: string;
  created_at: Timestamp;
};

/** Accounts on other servers that follow the site. */
export type FediverseFollowersTable = {
  actor_id: string;
  /** `@name@host` */
  handle: string;
  name: string | null;
  inbox: string;
  shared_inbox: string | null;
  follow_id: string;
  created_at: Timestamp;
};

/** What the owner blocked: an actor's id (a URL) or a whole server (its host name). */
export type FediverseBlocksTable = {
  target: string;
  created_at: Timestamp;
};

/** Each item as last sent to followers: a digest of what was sent; `deleted_at` once it was removed. */
export type FediversePublishedTable = {
  path: string;
  digest: string;
  published_at: Timestamp;
  updated_at: Timestamp;
  deleted_at: ColumnType<Date | string | null, string | null | undefined, string | null>;
};

/** A comment that came from the Fediverse: the Note it was, and who wrote it. */
export type FediverseRepliesTable = {
  comment_id: number;
  note_id: string;
  actor_id: string;
  handle: string;
  /** The name the comment carries. */
  name: string;
  /** The Note's page on its own server. */
  url: string;
  /** The writer's picture, kept here and served from the site's origin; null when it had none or it failed. */
  avatar: string | null;
  created_at: Timestamp;
};

/** Likes and boosts of an item from the Fediverse, counted per item. */
export type FediverseReactionsTable = {
  activity_id: string;
  kind: "like" | "announce";
  path: string;
  actor_id: string;
  created_at: Timestamp;
};

/** A webmention received: unverified until its source is read, pending until the owner approves. */
export type WebmentionsTable = {
  id: Generated<number>;
  source: string;
  target: string;
  /** The item's path the target names. */
  path: string;
  status: "unverified" | "pending" | "published";
  kind: "mention" | "reply" | "like" | "repost";
  author_name: string | null;
  author_url: string | null;
  content: string | null;
  received_at: Timestamp;
  verified_at: ColumnType<Date | string | null, string | null | undefined, string | null>;
};

/** Webmentions the site sent for an item's outgoing links, once each. */
export type WebmentionsSentTable = {
  path: string;
  target: string;
  /** "sent", "no endpoint" or the failure. */
  outcome: string;
  sent_at: Timestamp;
};

/**
 * Readership without cookies (server/readers/): `reader` is the day's hash of
 * the site, the IP address and the user agent with a salt deleted when the
 * day is over; days are UTC dates, "2026-12-01".
 */
export type ReaderSaltsTable = { day: string; salt: string };
export type ReaderVisitsTable = {
  day: string;
  reader: string;
  started_at: Timestamp;
  entry_path: string;
  source: string;
  medium: string;
  campaign: string;
  country: string;
  device: string;
  /** The visit's views so far (migration 027). */
  views: Generated<number>;
};
export type ReaderViewsTable = {
  id: BigId;
  day: string;
  at: Timestamp;
  reader: string;
  path: string;
};
export type ReaderReadsTable = { day: string; reader: string; path: string };
export type ReaderConversionsTable = {
  id: BigId;
  day: string;
  at: Timestamp;
  reader: string;
  kind: string;
};
export type ReaderDaysTable = {
  day: string;
  dimension: string;
  value: string;
  views: number;
  visitors: number;
  engaged: number;
};
export type ReaderConversionDaysTable = {
  day: string;
  kind: string;
  entry_path: string;
  source: string;
  count: number;
};
export type ReaderRollupsTable = { day: string; rolled_at: Timestamp };
/** A question asked of the site's assistant (docs/product.md, "Chat with Me"): never who asked. */
export type AssistantQuestionsTable = {
  id: Generated<number>;
  question: string;
  /** 1 when the site held an answer. */
  known: number;
  /** The page the answer quoted first. */
  page: string | null;
  /** The service the answer named. */
  service: string | null;
  /** 1 when a model wrote the answer from the passages. */
  written: ColumnType<number, number | undefined, number>;
  /** The reader's verdict: 1 helpful, 0 not, null none. */
  helpful: number | null;
  asked_at: Timestamp;
};

export type Database = {
  subscribers: SubscribersTable;
  unsubscribed_tokens: UnsubscribedTokensTable;
  confirmation_tokens: ConfirmationTokensTable;
  confirmation_requests: ConfirmationRequestsTable;
  editions: EditionsTable;
  outbox: OutboxTable;
  comment_action_tokens: CommentActionTokensTable;
  mythology_reactions: MythologyReactionsTable;
  science_reactions: ScienceReactionsTable;
  science_comments: ScienceCommentsTable;
  approved_visitors: ApprovedVisitorsTable;
  bans: BansTable;
  events: EventsTable;
  owner_sign_in_links: OwnerSignInLinksTable;
  owner_sessions: OwnerSessionsTable;
  owner_passkeys: OwnerPasskeysTable;
  owner_challenges: OwnerChallengesTable;
  owner_audit: OwnerAuditTable;
  enquiries: EnquiriesTable;
  enquiry_answers: EnquiryAnswersTable;
  enquiry_acknowledgements: EnquiryAcknowledgementsTable;
  spam_examples: SpamExamplesTable;
  spam_screening: SpamScreeningTable;
  import_sources: ImportSourcesTable;
  reply_addresses: ReplyAddressesTable;
  reply_watches: ReplyWatchesTable;
  spent_form_tokens: SpentFormTokensTable;
  fediverse_kv: FediverseKvTable;
  fediverse_queue: FediverseQueueTable;
  fediverse_keys: FediverseKeysTable;
  fediverse_followers: FediverseFollowersTable;
  fediverse_blocks: FediverseBlocksTable;
  fediverse_published: FediversePublishedTable;
  fediverse_replies: FediverseRepliesTable;
  fediverse_reactions: FediverseReactionsTable;
  webmentions: WebmentionsTable;
  webmentions_sent: WebmentionsSentTable;
  reader_salts: ReaderSaltsTable;
  reader_visits: ReaderVisitsTable;
  reader_views: ReaderViewsTable;
  reader_reads: ReaderReadsTable;
  reader_conversions: ReaderConversionsTable;
  reader_days: ReaderDaysTable;
  reader_conversion_days: ReaderConversionDaysTable;
  reader_rollups: ReaderRollupsTable;
  suppressions: SuppressionsTable;
  soft_bounces: SoftBouncesTable;
  edition_links: EditionLinksTable;
  edition_schedules: EditionSchedulesTable;
  bookings: BookingsTable;
  booking_settings: BookingSettingsTable;
  assistant_questions: AssistantQuestionsTable;
};

export type DatabaseKind = "sqlite" | "postgres";
