import { z } from "zod";
import { canonicalWholeNumber, commentContentSchema, emailSchema, timestampSchema } from "./api.ts";
import { busyCalendarHealthSchema } from "./bookings.ts";
import { limits } from "./limits.ts";
import { listPageFields, nextPageSchema } from "./list-pages.ts";
import { hasNoHiddenCharacters, hasVisibleCharacter, searchText } from "./text.ts";

/*
 * Request and response shapes of the owner's console API (`/api/admin`,
 * docs/decisions/012-owner-console.md). Every route but the sign-in ones
 * answers 401 without the owner's session.
 */

/** A sign-in link's token: 32 random bytes in base64url, as the server issues them. */
export const signInRequestSchema = z.strictObject({
  token: z.string().regex(/^[A-Za-z0-9_-]{43}$/, "This is not a sign-in link."),
});

export const mailLinkRequestSchema = z.strictObject({ email: emailSchema });

/** The same answer whether or not the address is the owner's. */
export const mailLinkResponseSchema = z.object({ requested: z.literal(true) });

const sessionSchema = z.object({
  id: z.string(),
  method: z.enum(["link", "passkey"]),
  /** The browser and device it signed in from, such as "Firefox on Linux". */
  device: z.string(),
  createdAt: timestampSchema,
  lastSeenAt: timestampSchema,
  current: z.boolean(),
});
export type OwnerSession = z.infer<typeof sessionSchema>;

/** What a sign-in (by link or passkey) answers: the new session. */
export const signInResponseSchema = z.object({ session: sessionSchema });
export const sessionsResponseSchema = z.object({ sessions: z.array(sessionSchema) });

const passkeySchema = z.object({
  id: z.string(),
  name: z.string(),
  createdAt: timestampSchema,
  lastUsedAt: timestampSchema.nullable(),
});
export type Passkey = z.infer<typeof passkeySchema>;

export const whoAmIResponseSchema = z.object({
  session: sessionSchema,
  passkeys: z.array(passkeySchema),
  /** Why passkeys cannot work on this SITE_URL (an IP address), or null when they can. */
  passkeysUnavailable: z.string().nullable(),
});
export type WhoAmIResponse = z.infer<typeof whoAmIResponseSchema>;

/** WebAuthn options and responses are the browser library's JSON, checked by the server library. */
const webAuthnJson = z.record(z.string(), z.unknown());

export const passkeyOptionsResponseSchema = z.object({ options: webAuthnJson });

export const registerPasskeyRequestSchema = z.strictObject({
  name: z
    .string()
    .trim()
    .min(1, "Name the passkey.")
    .max(60, "Passkey names are at most 60 characters.")
    // Shown in the console and in the command line's audit output: a direction
    // override (U+202E) or an invisible character would disguise it there.
    .refine(
      (name) => hasNoHiddenCharacters(name) && hasVisibleCharacter(name),
      "Passkey names cannot contain control, direction or invisible characters.",
    ),
  response: webAuthnJson,
});

/**
 * What the sign-in page offers: a passkey only when one is registered and the site's
 * host name can carry one, a mailed link only with OWNER_EMAIL. Public, like the page.
 */
export const signInMethodsResponseSchema = z.object({
  passkey: z.enum(["ready", "none", "unavailable"]),
  /** Why passkeys cannot work here, when `passkey` is "unavailable". */
  passkeyProblem: z.string().nullable(),
  mailedLink: z.boolean(),
});
export type SignInMethodsResponse = z.infer<typeof signInMethodsResponseSchema>;

export const passkeySignInRequestSchema = z.strictObject({ response: webAuthnJson });
export const passkeyResponseSchema = z.object({ passkey: passkeySchema });

// Overview

const dayCountSchema = z.object({ day: z.string(), comments: z.number(), reactions: z.number() });
const subscriberDaySchema = z.object({
  day: z.string(),
  confirmed: z.number(),
  pending: z.number(),
});
const engagedItemSchema = z.object({
  kind: z.enum(["mythology", "science"]),
  id: z.string(),
  title: z.string(),
  reactions: z.number(),
  comments: z.number(),
});
const editionProgressSchema = z.object({
  slug: z.string(),
  subject: z.string(),
  createdAt: timestampSchema,
  queued: z.number(),
  /** Accepted by the mail server. */
  sent: z.number(),
  failed: z.number(),
  cancelled: z.number(),
  bounced: z.number(),
  complaints: z.number(),
  /** Unsubscribed within 7 days of their copy. */
  unsubscribes: z.number(),
  /** Each web link and how many times it was followed; nothing says by whom. */
  links: z.array(z.object({ url: z.string(), clicks: z.number() })),
});
export type EditionProgress = z.infer<typeof editionProgressSchema>;

export const overviewResponseSchema = z.object({
  zone: z.string(), // The owner's: each day of the charts runs from its midnight there.
  activity: z.array(dayCountSchema),
  subscribers: z.array(subscriberDaySchema),
  mostEngaged: z.array(engagedItemSchema),
  editions: z.array(editionProgressSchema),
  /** Comments the spam filter or the moderation setting keeps off the page now. */
  moderation: z.object({ held: z.number(), spam: z.number() }),
});
export type OverviewResponse = z.infer<typeof overviewResponseSchema>;

// Comments

const consoleCommentSchema = z.object({
  id: z.number().int().positive(),
  postId: z.string(),
  postTitle: z.string(),
  content: z.string(),
  userName: z.string(),
  /** The writer's Fediverse handle, when the comment came from there. */
  handle: z.string().optional(),
  byOwner: z.boolean(), // The owner's own (signed in): nobody to ban, nothing to mark as spam.
  createdAt: timestampSchema,
  updatedAt: timestampSchema,
  /** Published for all; pending the owner's approval; or kept as spam (the filter, the honeypot or the owner). */
  status: z.enum(["published", "pending", "spam"]),
  /** Why a held or spam comment is there, in the owner's words: a rule, the score, a stranger's link. */
  why: z.string().optional(),
  /** For a reply, the comment it answers: its writer's name, its start (both empty once deleted). */
  replyTo: z
    .object({ id: z.number().int().positive(), userName: z.string(), excerpt: z.string() })
    .nullable(),
});
export type ConsoleComment = z.infer<typeof consoleCommentSchema>;

const commentStatusSchema = z.enum(["published", "pending", "spam"]);
export type CommentStatusFilter = z.infer<typeof commentStatusSchema>;

export const commentSearchSchema = z.object({
  q: searchText(200).optional().describe("Words in the text or the name"),
  post: searchText(100).optional().describe("Only this science post"),
  status: commentStatusSchema
    .optional()
    .describe("Only comments in this state; absent: the held queue, then every other comment"),
  limit: canonicalWholeNumber(1, 200, "limit is a whole number from 1 to 200.").default(50),
  // A comment's place is its time and its number.
  after: listPageFields.after.refine(
    (place) => place === undefined || /^\d{1,15}$/.test(place.key),
    {
      message: "This is not a cursor from this list.",
    },
  ),
});

export const consoleCommentsResponseSchema = z.object({
  /** Comments held for the owner's approval, oldest first: the queue (when the filter shows it). */
  pending: z.array(consoleCommentSchema),
  /** The other comments the filter shows, newest first; never one of `pending`. */
  comments: z.array(consoleCommentSchema),
  /** `after` for the next page of `comments`; null on the last. A later page lists no queue. */
  next: nextPageSchema,
  /** Every comment by state, whatever the search. */
  counts: z.object({ published: z.number(), pending: z.number(), spam: z.number() }),
  /** The science posts, for the search's post filter. */
  posts: z.array(z.object({ id: z.string(), title: z.string() })),
});
export type ConsoleCommentsResponse = z.infer<typeof consoleCommentsResponseSchema>;

/**
 * Whom a ban refuses (docs/moderation.md, "Bans"): the writer's browser (its
 * visitor credential, wherever it connects from), or that browser and every
 * other at the address the comment came from, which may be a whole office or
 * a mobile carrier's customers.
 */
export const banScopeSchema = z.enum(["browser", "address"]);
export type BanScope = z.infer<typeof banScopeSchema>;

export const banRequestSchema = z.strictObject({
  /** Until lifted when absent. */
  days: z.number().int().min(1).max(limits.banDaysMax).optional(),
  scope: banScopeSchema.default("browser"),
});

const commentIdSchema = z.number().int().min(1).max(2_147_483_647);

/** Approve or reject many held comments at once. */
export const bulkModerationRequestSchema = z.strictObject({
  action: z.enum(["approve", "reject"]),
  ids: z
    .array(commentIdSchema)
    .min(1, "Choose at least one comment.")
    .max(200, "At most 200 comments at once."),
});
export type BulkModerationRequest = z.input<typeof bulkModerationRequestSchema>;
export const bulkModerationResponseSchema = z.object({
  /** How many comments it approved or rejected. */
  done: z.number(),
  /** Ids that name no comment (deleted meanwhile). */
  notFound: z.array(z.number()),
});

/** How many comments wait for the owner: the console's badge and the Overview's call. */
export const moderationQueueResponseSchema = z.object({ pending: z.number() });

const consoleBanSchema = z.object({
  id: z.number(),
  /** The comment that led to the ban, while it exists. */
  comment: z
    .object({
      id: z.number(),
      userName: z.string(),
      postTitle: z.string(),
      excerpt: z.string(),
    })
    .nullable(),
  createdAt: timestampSchema,
  /** Null: until lifted. */
  expiresAt: timestampSchema.nullable(),
  /** Whether it names the writer's address too, not only their browser. */
  coversAddress: z.boolean(),
});
export type ConsoleBan = z.infer<typeof consoleBanSchema>;
export const bansResponseSchema = z.object({ bans: z.array(consoleBanSchema) });
export type BansResponse = z.infer<typeof bansResponseSchema>;

/**
 * The owner's words on a comment (docs/decisions/016-owner-voice.md): an edit
 * of any comment from the reading page, the text only (its writer and name
 * stay); or an answer from the console's Comments screen, posted in the
 * owner's voice under the thread of the comment it answers (docs/product.md,
 * "Replies").
 */
export const ownerTextRequestSchema = z.strictObject({ content: commentContentSchema });
export type OwnerTextRequest = z.input<typeof ownerTextRequestSchema>;

// Subscribers

/**
 * Addresses travel in request bodies, never in URLs: a URL is written to the
 * request log, and a proxy's or a browser's history.
 */
export const subscriberSearchSchema = z.strictObject({
  q: searchText(254).optional().describe("Part of an address"),
  limit: z.number().int().min(1).max(500).default(100),
});

/** One address, to remove from the subscribers. */
export const addressRequestSchema = z.strictObject({
  email: searchText(254).min(1).describe("The address, in any letter case"),
});

const consoleSubscriberSchema = z.object({
  email: z.string(),
  status: z.enum(["pending", "confirmed"]),
  suppressed: z.boolean().describe("Its mailbox bounced or complained: no edition goes to it"),
  createdAt: timestampSchema,
  confirmedAt: timestampSchema.nullable(),
});
export type ConsoleSubscriber = z.infer<typeof consoleSubscriberSchema>;

export const subscribersResponseSchema = z.object({
  counts: z.object({ pending: z.number(), confirmed: z.number() }),
  subscribers: z.array(consoleSubscriberSchema),
});
export type SubscribersResponse = z.infer<typeof subscribersResponseSchema>;

// Newsletter

export const editionSlugSchema = z
  .string()
  .regex(
    /^[a-z0-9][a-z0-9-]{0,79}$/,
    "Editions are named in lower case letters, digits and dashes.",
  );

const editionFileSchema = z.object({
  slug: z.string(),
  subject: z.string().nullable(),
  /** Why the file cannot be sent, when it cannot. */
  problem: z.string().nullable(),
  /** Links and images that lead nowhere, one sentence each: the owner reads them before sending. */
  warnings: z.array(z.string()),
  progress: editionProgressSchema.nullable(),
  /** When it is to be sent, while it waits (or is being queued: then it can no longer be cancelled). */
  scheduled: z.object({ sendAt: timestampSchema, started: z.boolean() }).nullable(),
});
export type EditionFile = z.infer<typeof editionFileSchema>;

export const editionsResponseSchema = z.object({
  editions: z.array(editionFileSchema),
  confirmedSubscribers: z.number(),
  /** Of them, those an edition leaves out: their address is suppressed. */
  suppressedSubscribers: z.number(),
});
export type EditionsResponse = z.infer<typeof editionsResponseSchema>;

export const editionPreviewResponseSchema = z.object({
  subject: z.string(),
  html: z.string(),
  warnings: z.array(z.string()),
});
export type EditionPreviewResponse = z.infer<typeof editionPreviewResponseSchema>;

export const testSendRequestSchema = z.strictObject({ to: emailSchema });
export const testSendResponseSchema = z.object({
  sent: z.enum(["mail", "file"]).describe("file: without SMTP_URL, written to the outbox folder"),
  warnings: z.array(z.string()),
});
export const queuedResponseSchema = z.object({
  queued: z.number(),
  before: z
    .number()
    .describe(
      "Copies queued since the edition's last line in the audit trail, by a send whose line failed",
    ),
  warnings: z.array(z.string()),
});

export const scheduleRequestSchema = z.strictObject({
  at: z.iso
    .datetime({ offset: true })
    .describe("When to send it: an ISO 8601 time with its offset, e.g. 2026-12-08T07:00:00Z"),
});
export const scheduledResponseSchema = z.object({
  sendAt: timestampSchema,
  warnings: z.array(z.string()),
});

// Health

export const healthResponseSchema = z.object({
  database: z.object({ kind: z.enum(["sqlite", "postgres"]), reachable: z.boolean() }),
  liveEvents: z.enum(["listening", "reconnecting"]),
  outbox: z.object({
    /** Due now, or waiting to be tried again. */
    queued: z.number(),
    /** Queued for a later time and not tried yet: a call's reminders, the hourly digest. */
    scheduled: z.number(),
    failed: z.number(),
    oldestQueuedAt: timestampSchema.nullable(),
  }),
  /** Fediverse messages given up in 30 days: how many, the latest `limits.givenUpShown`. None names a person. */
  fediverseGivenUp: z.object({
    total: z.number(),
    latest: z.array(
      z.object({
        id: z.number(),
        /** Fedify's `outbox` (a delivery), `fanout`, `inbox`, or the site's `ewe:take-back`. */
        kind: z.string(),
        /** The site's own activity's address, when it was one. */
        activity: z.string().nullable(),
        /** Why its last try failed: the deadline, or the kind of error. */
        why: z.string(),
        at: timestampSchema,
      }),
    ),
  }),
  busyCalendar: busyCalendarHealthSchema,
  version: z.string(),
  node: z.string(),
  settings: z.array(z.object({ name: z.string(), value: z.string().nullable() })),
});
export type HealthResponse = z.infer<typeof healthResponseSchema>;

// Audit

export const auditEntrySchema = z.object({
  id: z.number(),
  at: timestampSchema,
  sessionId: z.string().nullable(),
  /** The browser and device of that session; null for the command line and mailed links. */
  device: z.string().nullable(),
  action: z.string(),
  object: z.string().nullable(),
});
export type AuditEntry = z.infer<typeof auditEntrySchema>;

export const auditResponseSchema = z.object({ entries: z.array(auditEntrySchema) });
