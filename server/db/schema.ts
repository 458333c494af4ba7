import type { ColumnType, Generated } from "kysely";
import type { BigId, Defaulted, Maybe, MaybeTime, Timestamp } from "./columns.ts";
import type { BookingTables } from "./schema-bookings.ts";
import type { FediverseTables } from "./schema-fediverse.ts";
import type { ReaderTables } from "./schema-readers.ts";

type SubscriberStatus = "pending" | "confirmed";

export type SuppressionReason = "hard_bounce" | "complaint" | "soft_bounces";

/**
 * What an outbox row carries: one mail (a confirmation, one edition to one recipient, the
 * owner's about a comment, a booked call's…), one comment for the hourly digest, or one
 * webhook call (docs/decisions/011-owner-notifications.md). This type is the one list of
 * kinds: rows written to the outbox are checked against it when the code is type-checked,
 * and the database takes any text there, so a new kind of mail is a name here and a
 * composer, with no migration (docs/decisions/040-outbox-kinds-in-typescript.md).
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
  | "booking_reminder"
  | "booking_not_made";

/** One row per message to send. */
export type OutboxTable = {
  id: BigId;
  kind: OutboxKind;
  edition_id: number | null;
  /** The recipient; null for a webhook call, and for a removed address's edition copy, in `email_hash` instead. */
  email: Maybe<string>;
  /** The mailbox's keyed digest: a removed address's edition copy's, a booking-not-made news's. */
  email_hash: Maybe<string>;
  token: string | null;
  /** JSON: the comment a notification is about, or a webhook's body. */
  payload: Maybe<string>;
  status: "queued" | "sending" | "sent" | "failed" | "cancelled";
  attempts: Defaulted<number>;
  next_attempt_at: Timestamp;
  last_error: string | null;
  created_at: Timestamp;
  sent_at: MaybeTime;
  /** What the mail drew afterwards: a bounce or a complaint (an edition's figures). */
  feedback: Maybe<"bounce" | "complaint">;
  /** Its series: rows of one go in the order queued (server/outbox/queue.ts, `QueuedMessage`). */
  series: Maybe<string>;
};

export type CommentAction = "approve" | "delete";

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
  status: Defaulted<CommentStatus>;
  /** HMAC of the address the comment was sent from; null on comments older than bans. */
  ip_hash: Maybe<string>;
  /** 1 on the owner's own comments, written from a console session (docs/decisions/016-owner-voice.md). */
  by_owner: Defaulted<number>;
  /** The comment's Markdown as HTML, rendered when it was written; null on comments older than Markdown. */
  content_html: Maybe<string>;
  /** The comment this one answers (always one that starts a thread); null when it starts one. */
  parent_id: Maybe<number>;
  /** Set when a comment with replies was deleted: its place stays, its name and text are gone. */
  deleted_at: MaybeTime;
};

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
  status: Defaulted<"new" | "answered" | "closed">;
  /** 1 when the owner keeps it past the retention period. */
  kept: Defaulted<number>;
  /** HMACs of the address it was sent from and of its network (null on older ones), for the limits. */
  ip_hash: string;
  network_hash: Maybe<string>;
  /** The Message-ID of its acknowledgement; the owner's answers reply to it. */
  thread_id: string;
  /** SHA-256 of the token in the sender's deletion link. */
  deletion_token_hash: string;
  /** The sender's time zone as their browser gave it (on the form's list), for the mails' times; null without. */
  zone: string | null;
  created_at: Timestamp;
  updated_at: Timestamp;
};

type Reaction = {
  id: Generated<number>;
  type: string;
  user_name: string;
  visitor_id: string;
  created_at: Timestamp;
};

/** Every table; the Fediverse's and the readers' are in their own files. */
export interface Database extends BookingTables, FediverseTables, ReaderTables {
  subscribers: {
    id: Generated<number>;
    email: string;
    /** The digest a suppression of its mailbox is kept under (`heldAddress`, lib/mailbox.ts). */
    email_hash: string;
    unsubscribe_token: string;
    created_at: Timestamp;
    status: Defaulted<SubscriberStatus>;
    confirmed_at: MaybeTime;
    confirmation_sent_at: MaybeTime;
  };
  /** Seeds of removed subscriptions' links (`StandingLinks`, lib/tokens.ts), so a second visit is still answered. */
  unsubscribed_tokens: { token: string; unsubscribed_at: Timestamp };
  /** Double opt-in links: SHA-256 of the token, single use, with an expiry. */
  confirmation_tokens: {
    token_hash: string;
    subscriber_id: number;
    expires_at: Timestamp;
    used_at: MaybeTime;
  };
  /** Confirmation mails caused, by HMACs of client address and network (writer-keys.ts), for the hourly caps; kept one hour. */
  confirmation_requests: { id: BigId; ip: string; network: Maybe<string>; created_at: Timestamp };
  editions: {
    id: Generated<number>;
    slug: string;
    subject: string;
    html: string;
    text: string;
    created_at: Timestamp;
  };
  /** An edition's links, each with how many times it was followed, and no record of who. */
  edition_links: { edition_id: number; position: number; url: string; clicks: Defaulted<number> };
  /** An edition sent later, until every copy is queued (docs/mail.md, "Sending later"). */
  edition_schedules: {
    edition_id: number;
    send_at: Timestamp;
    created_at: Timestamp;
    /** When an instance first claimed it: from then it cannot be cancelled. */
    started_at: Timestamp | null;
    /** The claiming instance's lease, renewed while it queues. */
    claimed_until: Timestamp | null;
    queued_at: Timestamp | null;
  };
  /** Addresses nothing is mailed to, and why (docs/mail.md, "Bounces and complaints"). */
  suppressions: {
    /** A keyed digest of the mailbox (server/outbox/suppressions.ts): never the address. */
    email_hash: string;
    /** The address's domain, lower case: what the list shows when the site holds it no more. */
    domain: string;
    reason: SuppressionReason;
    /** What told us: smtp, mailbox, ses or postmark. */
    source: string;
    /** The receiving server's words, when there are some, every address cut out. */
    detail: string | null;
    created_at: Timestamp;
  };
  /** Temporary failures reported for an address (its digest), kept 30 days: three suppress it. */
  soft_bounces: { id: BigId; email_hash: string; ref: string; created_at: Timestamp };
  outbox: OutboxTable;
  /** A bounce's or complaint's mark for a mail still going out (PostgreSQL), until its outcome takes it. */
  outbox_marks: {
    outbox_id: ColumnType<number | string, number, never>;
    feedback: "bounce" | "complaint";
  };
  /**
   * The owner's one-time links in notification mails: SHA-256 of the token, one
   * action on one comment, single use, with an expiry.
   */
  comment_action_tokens: {
    token_hash: string;
    comment_id: number;
    action: CommentAction;
    expires_at: Timestamp;
    used_at: MaybeTime;
    created_at: Timestamp;
  };
  /** Form tokens already used for a submission, until they would have expired. */
  spent_form_tokens: { token: string; expires_at: Timestamp };
  /** SNS messages taken, by MessageId, while their signature is accepted: a replay changes nothing. */
  sns_messages: { message_id: string; taken_at: Timestamp };
  mythology_reactions: Reaction & { story_id: string };
  science_reactions: Reaction & { post_id: string };
  science_comments: ScienceCommentsTable;
  /** Visitors whose comments the owner approved: under MODERATION=first they are no longer held. */
  approved_visitors: { visitor_id: string; approved_at: Timestamp };
  /** The owner's bans: a visitor credential and the HMAC of an address, until `expires_at` (null: no end) or lifted. */
  bans: {
    id: Generated<number>;
    visitor_id: string | null;
    ip_hash: string | null;
    comment_id: number | null;
    created_at: Timestamp;
    expires_at: MaybeTime;
    lifted_at: MaybeTime;
  };
  /** The journal of live events: replay for reconnecting clients and other instances. */
  events: { id: BigId; topic: string; type: string; data: string; created_at: Timestamp };
  /** One-time sign-in links of the owner's console: SHA-256 of the token, `ownerRules.linkLifetimeMs`, single use. */
  owner_sign_in_links: {
    token_hash: string;
    /** "cli" or "mail": where the link was handed out. */
    channel: string;
    created_at: Timestamp;
    expires_at: Timestamp;
    used_at: MaybeTime;
  };
  /** The owner's sessions: the cookie's token is kept only as its SHA-256. */
  owner_sessions: {
    id: string;
    token_hash: string;
    method: "link" | "passkey";
    created_at: Timestamp;
    last_seen_at: Timestamp;
    revoked_at: MaybeTime;
    /** "Firefox on Linux": null for sessions opened before devices were recorded. */
    device: Maybe<string>;
    /** The passkey it signed in with, whose removal ends it; null for a link's. */
    passkey_id: Maybe<string>;
  };
  /** WebAuthn credentials the owner registered from a session. */
  owner_passkeys: {
    id: string;
    name: string;
    public_key: string;
    counter: ColumnType<number | string, number, number>;
    transports: string;
    created_at: Timestamp;
    last_used_at: MaybeTime;
  };
  /** Outstanding WebAuthn challenges, each usable once for a few minutes. */
  owner_challenges: {
    challenge: string;
    purpose: "registration" | "authentication";
    session_id: string | null;
    expires_at: Timestamp;
  };
  /** What the owner did, from which session, to what. */
  owner_audit: {
    id: BigId;
    at: Timestamp;
    session_id: string | null;
    action: string;
    object: string | null;
  };
  enquiries: EnquiriesTable;
  /** The owner's answers, as mailed. */
  enquiry_answers: {
    id: Generated<number>;
    enquiry_id: number;
    body: string;
    created_at: Timestamp;
  };
  /** When an address (as an HMAC) was last sent an acknowledgement: at most one in eight hours. */
  enquiry_acknowledgements: { address_hash: string; sent_at: Timestamp };
  /** What the spam filter learns from: the owner's decisions on comments (docs/decisions/025-spam-that-learns.md). */
  spam_examples: {
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
  spam_screening: {
    comment_id: number;
    outcome: "published" | "pending" | "spam";
    /** Why it was held or stored as spam: score, stranger-link, learned, honeypot or moderation. */
    reason: string | null;
    score: number | null;
    created_at: Timestamp;
  };
  /** What `admin import` brought in, by its source's own id, and the row it became. */
  import_sources: {
    source: string;
    source_id: string;
    row_table: string;
    row_id: number;
    imported_at: Timestamp;
  };
  /** A mailbox (as an HMAC) whose reader stopped all reply mails: sent no confirmation mail again. */
  reply_stops: { mailbox_hash: string; created_at: Timestamp };
  /** An address a reader left to be mailed replies (docs/product.md, "Reply mails"): personal data, never public. */
  reply_addresses: {
    id: Generated<number>;
    visitor_id: string;
    email: string;
    /** As a subscriber's. */
    email_hash: string;
    status: Defaulted<"pending" | "confirmed">;
    /** SHA-256 of the confirmation link's token; null once confirmed. */
    confirm_token_hash: string | null;
    confirm_expires_at: MaybeTime;
    confirmation_sent_at: MaybeTime;
    /** The seed of the "all replies" unsubscribe link (`StandingLinks`, lib/tokens.ts). */
    unsubscribe_token: string;
    created_at: Timestamp;
    confirmed_at: MaybeTime;
  };
  /** A thread an address follows, because its reader wrote in it. */
  reply_watches: {
    id: Generated<number>;
    address_id: number;
    /** The comment that starts the thread. */
    thread_id: number;
    /** The reader's comment that asked for it; the watch goes with it. */
    comment_id: number;
    /** The seed of the "this thread" unsubscribe link (`StandingLinks`, lib/tokens.ts). */
    unsubscribe_token: string;
    /** Until then, further replies in the thread wait for one digest. */
    window_ends_at: MaybeTime;
    created_at: Timestamp;
  };
  /** A question asked of the site's assistant (docs/product.md, "Chat with Me"): never who asked. */
  assistant_questions: {
    id: Generated<number>;
    question: string;
    /** 1 when the site held an answer. */
    known: number;
    /** The page the answer quoted first. */
    page: string | null;
    /** The service the answer named. */
    service: string | null;
    /** 1 when a model wrote the answer from the passages. */
    written: Defaulted<number>;
    /** The reader's verdict: 1 helpful, 0 not, null none. */
    helpful: number | null;
    asked_at: Timestamp;
  };
}

export type DatabaseKind = "sqlite" | "postgres";
