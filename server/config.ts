import { isIP } from "node:net";
import path from "node:path";
import { z } from "zod";
import { ContentError } from "../content/frontmatter.ts";
import { type Owner, type OwnerProfile, readOwnerProfile, resolveOwner } from "../content/owner.ts";
import {
  describeSampleFiles,
  findSamplePassages,
  writingFolders,
} from "../content/sample-voice.ts";
import { personName } from "../content/schema.ts";
import type { PublicConfig } from "../contract/site-config.ts";
import { isTimeZone } from "../contract/time-zones.ts";

/**
 * The whole configuration of the site, read once from environment variables.
 * Every variable is listed in `.env.example` and docs/configuration.md. Values the browser
 * needs (contact email, chatbot, site URL) are baked into the prerendered pages
 * at build time, so `npm start` rebuilds when they change.
 */
const optionalText = z
  .string()
  .trim()
  .transform((value) => (value === "" ? undefined : value))
  .optional();

/**
 * `news@example.com` or `Name <news@example.com>`: no line breaks, quotes or
 * angle brackets in the name, so the From header cannot be split or spoofed.
 */
const mailFromPattern =
  /^(?:[^\r\n<>"@]{1,80} <[^\s<>"@]{1,64}@[^\s<>"@]{1,190}>|[^\s<>"@]{1,64}@[^\s<>"@]{1,190})$/;

/** The names proxy-addr (Fastify's trustProxy) knows for groups of addresses. */
const addressGroups = new Set(["loopback", "linklocal", "uniquelocal"]);

function isAddressOrRange(entry: string): boolean {
  if (addressGroups.has(entry)) return true;
  const [address = "", prefix, ...rest] = entry.split("/");
  const family = isIP(address);
  if (family === 0 || rest.length > 0) return false;
  if (prefix === undefined) return true;
  return /^\d{1,3}$/.test(prefix) && Number(prefix) <= (family === 4 ? 32 : 128);
}

/**
 * Whose X-Forwarded-For to believe. A client can write anything into that
 * header, so only the entries added by our own proxies count: the last N hops,
 * or the hops that come from the listed proxy addresses. `true` used to trust
 * every hop, which let any client choose its own address; it is refused so that
 * an old setting cannot silently keep meaning something else.
 */
const trustProxy = z
  .string()
  .trim()
  .optional()
  .transform((value, ctx): false | number | string[] => {
    if (value === undefined || value === "" || value === "false" || value === "0") return false;
    if (value === "true") {
      ctx.addIssue({
        code: "custom",
        message:
          "true is no longer accepted: it let any client forge its address. Give the number of proxies in front of the server (e.g. 1) or their addresses (e.g. 127.0.0.1, or 10.0.0.0/8)",
      });
      return z.NEVER;
    }
    if (/^\d+$/.test(value)) {
      const hops = Number(value);
      if (hops > 10) ctx.addIssue({ code: "custom", message: "at most 10 proxy hops" });
      return hops;
    }
    const entries = value.split(",").map((entry) => entry.trim());
    const invalid = entries.filter((entry) => !isAddressOrRange(entry));
    if (invalid.length > 0) {
      ctx.addIssue({
        code: "custom",
        message: `"${invalid.join('", "')}" is not a hop count, an IP address or a CIDR range`,
      });
      return z.NEVER;
    }
    return entries;
  });

/** A duration in seconds; fractions are allowed (tests use short ones). */
const seconds = (fallback: number) => z.coerce.number().positive().max(3600).default(fallback);

const envSchema = z
  .object({
    NODE_ENV: z.enum(["development", "production", "test"]).default("development"),
    HOST: z.string().min(1).default("0.0.0.0"),
    PORT: z.coerce.number().int().min(0).max(65535).default(3000),
    DATA_DIR: z.string().min(1).default("./data"),
    // Where `npm run build` writes the site (its pages under client/) and
    // where `npm start` serves it from; relative to the project's folder. The
    // tests build into a folder of their own, so they never touch this one.
    BUILD_DIR: optionalText.transform((value) => value ?? "build"),
    // The built site to serve, when it is somewhere else than BUILD_DIR/client.
    CLIENT_ROOT: optionalText,
    DATABASE_URL: optionalText.pipe(
      z
        .string()
        .regex(/^postgres(ql)?:\/\//, "must start with postgres:// or postgresql://")
        .optional(),
    ),
    // On PostgreSQL, how long one of the server's statements may run, and a
    // transaction sit idle, before the database ends it and the request
    // answers 503; the driver gives up a second later, when the connection
    // itself stopped answering.
    DATABASE_STATEMENT_TIMEOUT_SECONDS: seconds(10),
    COOKIE_SECRET: optionalText.pipe(
      z.string().min(32, "must be at least 32 characters long").optional(),
    ),
    SITE_URL: optionalText.pipe(
      z
        .url({ protocol: /^https?$/, error: "must be an absolute http(s) URL" })
        .transform((url) => url.replace(/\/+$/, ""))
        .optional(),
    ),
    // The owner's name, over the profile's (content/owner.md).
    SITE_OWNER_NAME: optionalText.pipe(personName.optional()),
    OWNER_LINKEDIN_URL: optionalText.pipe(
      z.url({ protocol: /^https$/, error: "must be an https URL" }).optional(),
    ),
    CONTACT_EMAIL: optionalText.pipe(z.email("must be an email address").optional()),
    CHATBOT_SCRIPT_URL: optionalText.pipe(
      z.url({ protocol: /^https$/, error: "must be an https URL" }).optional(),
    ),
    CHATBOT_BOT_ID: optionalText,
    // Behind a reverse proxy: the number of proxies in front, or their addresses.
    TRUST_PROXY: trustProxy,
    // Writes (subscribe, react, comment) allowed per window, per visitor and per IP address.
    RATE_LIMIT_WRITES_PER_VISITOR: z.coerce.number().int().min(1).default(60),
    RATE_LIMIT_WRITES_PER_IP: z.coerce.number().int().min(1).default(600),
    RATE_LIMIT_WINDOW_SECONDS: z.coerce.number().int().min(1).default(60),
    // How long a client may take to send a request's headers, and the whole
    // request (headers and body); how long a connection may stay silent, and
    // idle between two requests. Live-event streams are exempt from the last two.
    HEADERS_TIMEOUT_SECONDS: seconds(10),
    REQUEST_TIMEOUT_SECONDS: seconds(30),
    IDLE_TIMEOUT_SECONDS: seconds(30),
    KEEP_ALIVE_TIMEOUT_SECONDS: seconds(72),
    // Outgoing mail (docs/decisions/008-newsletter.md). Without SMTP_URL every
    // message is written as an .eml file under DATA_DIR/outbox/ instead.
    SMTP_URL: optionalText.pipe(
      z.url({ protocol: /^smtps?$/, error: "must be an smtp:// or smtps:// URL" }).optional(),
    ),
    MAIL_FROM: optionalText.pipe(
      z
        .string()
        .regex(
          mailFromPattern,
          'must be an address, or a name and an address: "Engage with Engineer <news@example.com>"',
        )
        .optional(),
    ),
    // Messages one instance sends per minute; 0 sends as fast as the SMTP server accepts.
    MAIL_RATE_PER_MINUTE: z.coerce.number().int().min(0).max(100_000).default(60),
    // SMTP connections one instance keeps open, and so messages it has in flight
    // at once when not paced (docs/decisions/036-sending-in-flat-memory.md).
    MAIL_CONNECTIONS: z.coerce.number().int().min(1).max(20).default(4),
    // List health (docs/mail.md, "Bounces and complaints"): the return path
    // each mail is sent from, with its own VERP address (bounces+<id>-<sig>@…),
    // and the mailbox its delivery and feedback reports arrive in, read over
    // IMAP every BOUNCE_IMAP_POLL_SECONDS.
    BOUNCE_ADDRESS: optionalText.pipe(z.email("must be an email address").optional()),
    BOUNCE_IMAP_URL: optionalText.pipe(
      z
        .url({ protocol: /^imaps?$/, error: "must be an imap:// or imaps:// URL" })
        .refine((url) => new URL(url).username !== "", "must name the mailbox's user")
        .optional(),
    ),
    BOUNCE_IMAP_POLL_SECONDS: z.coerce.number().int().min(10).max(86_400).default(300),
    // The DKIM key every mail is signed with, made by `admin mail dkim`; by
    // default DATA_DIR/dkim-key.json (docs/mail.md, "Signed mail").
    DKIM_KEY_FILE: optionalText,
    // Providers' reports: Amazon SES through SNS (the topics' ARNs, comma
    // separated) and Postmark (the webhook's secret, given as its basic-auth
    // password or in the X-Webhook-Secret header).
    SES_SNS_TOPIC_ARN: optionalText.pipe(
      z
        .string()
        .regex(
          /^arn:aws[a-z-]*:sns:[a-z0-9-]+:\d{12}:[A-Za-z0-9_-]+(\s*,\s*arn:aws[a-z-]*:sns:[a-z0-9-]+:\d{12}:[A-Za-z0-9_-]+)*$/,
          "must be one or more SNS topic ARNs (arn:aws:sns:REGION:ACCOUNT:NAME), comma separated",
        )
        .optional(),
    ),
    POSTMARK_WEBHOOK_SECRET: optionalText.pipe(
      z.string().min(24, "must be at least 24 characters long").optional(),
    ),
    // Confirmation mails one IP address can cause per hour (list bombing).
    SUBSCRIBE_CONFIRMATIONS_PER_IP_PER_HOUR: z.coerce.number().int().min(1).default(5),
    // Comment moderation and spam defences (docs/decisions/010-moderation-and-spam.md):
    // off publishes at once, first holds a visitor's comments until the owner
    // approves one, all holds every comment.
    MODERATION: z.enum(["off", "first", "all"]).default("off"),
    // The comment form cannot be sent sooner than this after it appeared; 0 turns the check off.
    COMMENT_MIN_SECONDS: z.coerce.number().min(0).max(600).default(3),
    // Links one comment may carry.
    COMMENT_MAX_LINKS: z.coerce.number().int().min(0).max(50).default(2),
    // The same text from the same visitor (or address) within this many minutes is refused.
    COMMENT_DUPLICATE_MINUTES: z.coerce.number().int().min(0).max(10_080).default(10),
    // A comment with a link or contact details from a browser the site does not
    // trust yet waits for the owner (docs/decisions/025-spam-that-learns.md).
    HOLD_LINKS_FROM_NEW: z
      .enum(["on", "off", "true", "false", "1", "0"], { error: "must be on or off" })
      .default("on")
      .transform((value) => value === "on" || value === "true" || value === "1"),
    // The spam classifier's trained model, read on the first comment; by
    // default the one the build writes, build/spam-model.json.
    SPAM_MODEL_FILE: optionalText.pipe(z.string().optional()),
    // The owner's notifications of new comments (docs/decisions/011-owner-notifications.md).
    OWNER_EMAIL: optionalText.pipe(z.email("must be an email address").optional()),
    NOTIFY_COMMENTS: optionalText.pipe(
      z.enum(["each", "hourly", "off"], { error: "must be each, hourly or off" }).optional(),
    ),
    WEBHOOK_URL: optionalText.pipe(
      z
        .url({ protocol: /^https?$/, error: "must be an absolute http:// or https:// URL" })
        .optional(),
    ),
    WEBHOOK_SECRET: optionalText.pipe(
      z.string().min(32, "must be at least 32 characters long").optional(),
    ),
    // Enquiries from /services (docs/product.md, "Enquiries"): how many one IP
    // address, or one email address, may send per hour, and how long they are
    // kept unless the owner keeps one.
    ENQUIRIES_PER_HOUR: z.coerce.number().int().min(1).max(1000).default(5),
    ENQUIRY_RETENTION_DAYS: z.coerce.number().int().min(1).max(3650).default(365),
    // The site's account on the Fediverse, @handle@host (docs/fediverse.md);
    // by default made from the owner's name.
    FEDIVERSE_HANDLE: optionalText.pipe(
      z
        .string()
        .regex(/^[a-z0-9_]{1,30}$/i, "must be 1 to 30 letters, digits or underscores")
        .optional(),
    ),
    // Lets the site fetch and deliver to private and loopback addresses: for
    // tests of two sites on one machine only (NODE_ENV=test).
    FEDIVERSE_ALLOW_PRIVATE_ADDRESSES_IN_TESTS: z
      .enum(["on", "off", "true", "false", "1", "0"], { error: "must be on or off" })
      .default("off")
      .transform((value) => value === "on" || value === "true" || value === "1"),
    // Readership counted without cookies (docs/product.md, "Readers"): off
    // counts nothing and leaves the beacon out of the pages; raw views are
    // kept this many days, each day's figures for good.
    ANALYTICS: z
      .enum(["on", "off", "true", "false", "1", "0"], { error: "must be on or off" })
      .default("on")
      .transform((value) => value === "on" || value === "true" || value === "1"),
    ANALYTICS_RAW_DAYS: z.coerce.number().int().min(1).max(3650).default(30),
    // Views and engaged reads counted per minute from one address (an IPv6
    // address by its /64); beyond it the beacon is answered as usual and
    // nothing is counted, so a flood cannot fill the tables.
    ANALYTICS_VIEWS_PER_MINUTE_PER_IP: z.coerce.number().int().min(1).default(120),
    // Booked calls (docs/product.md, "Book a call"): the owner's zone (else the
    // owner profile's, else UTC), the fixed meeting room, how many one IP
    // address may book per hour, how many calls one address may have ahead,
    // and how long after a call its booking is kept.
    BOOKING_TIMEZONE: optionalText.pipe(
      z
        .string()
        .refine(isTimeZone, "must be an IANA time zone, such as Europe/London or Asia/Kolkata")
        .optional(),
    ),
    BOOKING_MEETING_URL: optionalText.pipe(
      z.url({ protocol: /^https$/, error: "must be an absolute https:// URL" }).optional(),
    ),
    BOOKINGS_PER_HOUR: z.coerce.number().int().min(1).max(1000).default(5),
    BOOKING_PENDING_MAX: z.coerce.number().int().min(1).max(100).default(3),
    BOOKING_RETENTION_DAYS: z.coerce.number().int().min(1).max(3650).default(180),
    // The site's own assistant (docs/product.md, "Chat with Me"): questions one
    // visitor, and one IP address, may ask per minute, and how long questions
    // are kept for the owner's "Questions" screen.
    ASSISTANT_QUESTIONS_PER_MINUTE: z.coerce.number().int().min(1).max(10_000).default(10),
    ASSISTANT_QUESTIONS_PER_MINUTE_PER_IP: z.coerce.number().int().min(1).max(100_000).default(60),
    ASSISTANT_RETENTION_DAYS: z.coerce.number().int().min(1).max(3650).default(90),
    // Written answers (docs/product.md, "Chat with Me"): an OpenAI-compatible
    // chat-completions endpoint and the model it runs write the answer from
    // the passages found, and nothing else; past the timeout, or on any error,
    // the quoted answer stands. The key, when the endpoint wants one, is sent
    // as a bearer token.
    ASSISTANT_LLM_URL: optionalText.pipe(
      z
        .url({ protocol: /^https?$/, error: "must be an absolute http:// or https:// URL" })
        .optional(),
    ),
    ASSISTANT_LLM_MODEL: optionalText.pipe(
      z.string().max(200, "must be at most 200 characters").optional(),
    ),
    ASSISTANT_LLM_API_KEY: optionalText,
    ASSISTANT_LLM_TIMEOUT_MS: z.coerce.number().int().min(500).max(120_000).default(10_000),
    // Open live-event streams one instance serves before answering 503.
    EVENT_STREAMS_MAX: z.coerce.number().int().min(1).default(10_000),
    // ...and from one IP address, and one visitor, before answering 429.
    EVENT_STREAMS_PER_IP: z.coerce.number().int().min(1).default(20),
    EVENT_STREAMS_PER_VISITOR: z.coerce.number().int().min(1).default(10),
    // The owner's console (docs/decisions/012-owner-console.md): how many
    // sign-in attempts one IP address may make per hour, and the folder of
    // newsletter editions it lists. Its sign-in page mails links to OWNER_EMAIL.
    OWNER_SIGN_IN_ATTEMPTS_PER_HOUR: z.coerce.number().int().min(1).max(10_000).default(20),
    EDITIONS_DIR: z.string().min(1).default("./newsletter"),
    LOG_LEVEL: z
      .enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"])
      .default("info"),
    // One read (or readers' beacon) in this many is logged at the info level (errors and writes
    // always are): at full speed a line per read costs a quarter of the reads.
    LOG_SAMPLE_READS: z.coerce.number().int().min(1).max(1_000_000).default(100),
  })
  .superRefine((env, ctx) => {
    if (Boolean(env.CHATBOT_SCRIPT_URL) !== Boolean(env.CHATBOT_BOT_ID)) {
      ctx.addIssue({
        code: "custom",
        path: ["CHATBOT_BOT_ID"],
        message: "CHATBOT_SCRIPT_URL and CHATBOT_BOT_ID must be set together",
      });
    }
    if (env.HEADERS_TIMEOUT_SECONDS > env.REQUEST_TIMEOUT_SECONDS) {
      ctx.addIssue({
        code: "custom",
        path: ["HEADERS_TIMEOUT_SECONDS"],
        message: "must not exceed REQUEST_TIMEOUT_SECONDS (the headers are part of the request)",
      });
    }
    if ((env.NOTIFY_COMMENTS === "each" || env.NOTIFY_COMMENTS === "hourly") && !env.OWNER_EMAIL) {
      ctx.addIssue({
        code: "custom",
        path: ["OWNER_EMAIL"],
        message: `is required with NOTIFY_COMMENTS=${env.NOTIFY_COMMENTS} (the address the mails go to)`,
      });
    }
    if (env.WEBHOOK_URL && !env.WEBHOOK_SECRET) {
      ctx.addIssue({
        code: "custom",
        path: ["WEBHOOK_SECRET"],
        message: "is required with WEBHOOK_URL (every call is signed with it)",
      });
    }
    if (env.ASSISTANT_LLM_URL && !env.ASSISTANT_LLM_MODEL) {
      ctx.addIssue({
        code: "custom",
        path: ["ASSISTANT_LLM_MODEL"],
        message:
          "is required with ASSISTANT_LLM_URL (the model the endpoint runs, such as llama3.1:8b)",
      });
    }
    if (env.ASSISTANT_LLM_MODEL && !env.ASSISTANT_LLM_URL) {
      ctx.addIssue({
        code: "custom",
        path: ["ASSISTANT_LLM_URL"],
        message:
          "is required with ASSISTANT_LLM_MODEL (the chat-completions endpoint that runs it)",
      });
    }
    if (env.FEDIVERSE_ALLOW_PRIVATE_ADDRESSES_IN_TESTS && env.NODE_ENV !== "test") {
      ctx.addIssue({
        code: "custom",
        path: ["FEDIVERSE_ALLOW_PRIVATE_ADDRESSES_IN_TESTS"],
        message:
          "is for tests only (NODE_ENV=test): it would let anyone make the site fetch addresses on its own network",
      });
    }
    if (env.NODE_ENV !== "production") return;
    if (!env.SITE_URL) {
      ctx.addIssue({
        code: "custom",
        path: ["SITE_URL"],
        message: "is required in production (canonical URLs, sitemap and the same-origin check)",
      });
    } else if (!env.SITE_URL.startsWith("https:") && !isLoopback(env.SITE_URL)) {
      // Over plain http the visitor cookie, and so the ownership of comments, can be stolen.
      ctx.addIssue({
        code: "custom",
        path: ["SITE_URL"],
        message: "must be an https URL in production (http is accepted only for localhost)",
      });
    }
    if (!env.CONTACT_EMAIL) {
      ctx.addIssue({
        code: "custom",
        path: ["CONTACT_EMAIL"],
        message: "is required in production (the contact links of every page)",
      });
    }
    for (const name of ["SMTP_URL", "MAIL_FROM"] as const) {
      if (!env[name]) {
        ctx.addIssue({
          code: "custom",
          path: [name],
          message: "is required in production (confirmation mails and editions go out through it)",
        });
      }
    }
    if (env.DATABASE_URL && !env.COOKIE_SECRET) {
      ctx.addIssue({
        code: "custom",
        path: ["COOKIE_SECRET"],
        message: "is required in production with DATABASE_URL: every instance must share it",
      });
    }
  });

function isLoopback(url: string): boolean {
  const { hostname } = new URL(url);
  return hostname === "localhost" || hostname === "[::1]" || /^127\.\d+\.\d+\.\d+$/.test(hostname);
}

export type Env = z.output<typeof envSchema>;

/** Every variable the site reads, in the order `.env.example` and docs/configuration.md list them. */
export const environmentVariables = Object.keys(envSchema.shape) as (keyof Env)[];

export type Config = Env & {
  /** BUILD_DIR as an absolute path. */
  buildDir: string;
  /** CLIENT_ROOT as an absolute path, else BUILD_DIR/client. */
  clientRoot: string;
  siteUrl: string;
  contactEmail: string;
  databaseKind: "sqlite" | "postgres";
  /**
   * MAIL_FROM, or a local address for a first run; without a name of its own,
   * the owner's name "from" the site's (readers know the person, not the address).
   */
  mailFrom: string;
  /** The owner, from content/owner.md and SITE_OWNER_NAME / OWNER_LINKEDIN_URL. */
  owner: Owner;
  /** NOTIFY_COMMENTS, or `each` when OWNER_EMAIL is set and `off` when it is not. */
  notifyComments: "each" | "hourly" | "off";
  /** FEDIVERSE_HANDLE, or one made from the owner's name. */
  fediverseHandle: string;
  /** BOOKING_TIMEZONE, else the owner profile's zone, else UTC: the zone of the bookable hours. */
  bookingTimeZone: string;
};

/** The project's folder, which a relative BUILD_DIR starts from. */
const projectRoot = path.resolve(import.meta.dirname, "..");

export class ConfigError extends Error {
  override name = "ConfigError";
}

/**
 * `productionRules: false` is for the client build, where Vite itself sets
 * NODE_ENV=production; the server applies the rules when it starts.
 */
export function loadConfig(
  env: NodeJS.ProcessEnv = process.env,
  {
    productionRules = true,
    ownerProfile,
    writing,
  }: {
    productionRules?: boolean;
    /** The owner's profile; read from content/owner.md when not given (tests give one). */
    ownerProfile?: OwnerProfile;
    /** Where the writing is: content/ and EDITIONS_DIR when not given (tests give folders). */
    writing?: { dir: string; label: string }[];
  } = {},
): Config {
  const parsed = envSchema.safeParse(productionRules ? env : { ...env, NODE_ENV: undefined });
  let profile: OwnerProfile | undefined;
  const lines: string[] = [];
  try {
    profile = ownerProfile ?? readOwnerProfile();
  } catch (error) {
    if (!(error instanceof ContentError)) throw error;
    lines.push(`  content/${error.message.replace(/\n/g, "\n  ")}`);
  }
  if (
    productionRules &&
    env.NODE_ENV === "production" &&
    profile?.sample &&
    !env.SITE_OWNER_NAME?.trim()
  ) {
    lines.push(
      "  content/owner.md: is still the sample profile that comes with the site. Replace it with your own (README, First run), or set SITE_OWNER_NAME",
    );
  }
  if (productionRules && env.NODE_ENV === "production" && profile && !runsAsSample(profile, env)) {
    lines.push(...sampleVoiceRefusal(writing ?? writingFolders(env.EDITIONS_DIR)));
  }
  if (!parsed.success) {
    lines.unshift(
      ...parsed.error.issues.map(
        (issue) => `  ${issue.path.join(".") || "environment"}: ${issue.message}`,
      ),
    );
  }
  if (!parsed.success || profile === undefined || lines.length > 0) {
    throw new ConfigError(`Invalid configuration:\n${lines.join("\n")}`);
  }
  const values = parsed.data;
  const owner = resolveOwner(profile, values);
  const buildDir = path.resolve(projectRoot, values.BUILD_DIR);
  return {
    ...values,
    buildDir,
    clientRoot: values.CLIENT_ROOT
      ? path.resolve(values.CLIENT_ROOT)
      : path.join(buildDir, "client"),
    siteUrl: values.SITE_URL ?? `http://localhost:${values.PORT || 3000}`,
    contactEmail: values.CONTACT_EMAIL ?? "contact@example.com",
    databaseKind: values.DATABASE_URL ? "postgres" : "sqlite",
    mailFrom: fromWithName(values.MAIL_FROM ?? "newsletter@localhost", owner.name),
    owner,
    notifyComments: values.NOTIFY_COMMENTS ?? (values.OWNER_EMAIL ? "each" : "off"),
    fediverseHandle: values.FEDIVERSE_HANDLE ?? handleOf(owner.name),
    bookingTimeZone: values.BOOKING_TIMEZONE ?? profile.timeZone ?? "UTC",
  };
}

/**
 * The sample profile under its own name (or none): a demonstration of the site,
 * which may tell the sample engineer's stories. Under any other name, or with
 * a profile of the owner's own, those stories would be taken as the owner's.
 */
function runsAsSample(profile: OwnerProfile, env: NodeJS.ProcessEnv): boolean {
  const name = env.SITE_OWNER_NAME?.trim();
  return profile.sample && (!name || name === profile.name);
}

/** Production under a real name: no passage written for the sample engineer may remain. */
function sampleVoiceRefusal(folders: { dir: string; label: string }[]): string[] {
  try {
    const passages = findSamplePassages(folders);
    if (passages.length === 0) return [];
    return [
      `  sample-voice: first-person passages written for the sample engineer remain (between <!-- sample-voice --> and <!-- /sample-voice --> lines) in ${describeSampleFiles(passages)}. Rewrite each from your own practice or delete it, markers included (README, First run; npm run content:check lists them)`,
    ];
  } catch (error) {
    if (!(error instanceof ContentError)) throw error;
    return [`  ${error.message}`];
  }
}

/** "Arjun Rao" as a Fediverse handle: arjun_rao. */
function handleOf(name: string): string {
  const handle = name
    .normalize("NFKD")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "_")
    .replace(/^_+|_+$/g, "")
    .slice(0, 30)
    .replace(/_+$/, "");
  return handle === "" ? "site" : handle;
}

/** `news@site` becomes `Asha Rao from Engage with Engineer <news@site>`; a name already given stays. */
function fromWithName(from: string, ownerName: string): string {
  return from.includes("<") ? from : `${ownerName} from Engage with Engineer <${from}>`;
}

export function publicConfig(config: Config): PublicConfig {
  return {
    siteUrl: config.siteUrl,
    contactEmail: config.contactEmail,
    ownerName: config.owner.name,
    ownerLinkedInUrl: config.owner.linkedIn,
    chatbot:
      config.CHATBOT_SCRIPT_URL && config.CHATBOT_BOT_ID
        ? { scriptUrl: config.CHATBOT_SCRIPT_URL, botId: config.CHATBOT_BOT_ID }
        : null,
    enquiryRetentionDays: config.ENQUIRY_RETENTION_DAYS,
    analytics: config.ANALYTICS ? { rawDays: config.ANALYTICS_RAW_DAYS } : null,
    fediverseAccount: `@${config.fediverseHandle}@${new URL(config.siteUrl).host}`,
    assistantRetentionDays: config.ASSISTANT_RETENTION_DAYS,
    assistantModelHost: config.ASSISTANT_LLM_URL ? new URL(config.ASSISTANT_LLM_URL).host : null,
    bookingRetentionDays: config.BOOKING_RETENTION_DAYS,
  };
}
