import { isIP } from "node:net";
import path from "node:path";
import { z } from "zod";
import { ContentError } from "../content/frontmatter.ts";
import { type OwnerProfile, readOwnerProfile, resolveOwner } from "../content/owner.ts";
import {
  describeSampleFiles,
  findSamplePassages,
  writingFolders,
} from "../content/sample-voice.ts";
import { personName } from "../content/schema.ts";
import type { PublicConfig } from "../contract/site-config.ts";
import { isTimeZone } from "../contract/time-zones.ts";
import { isLoopback } from "./lib/loopback.ts";

/**
 * The whole configuration of the site, read once from environment variables.
 * Every variable is listed, with its meaning, in `.env.example` and docs/configuration.md.
 * Values the browser needs (contact email, chatbot, site URL) are baked into the prerendered pages
 * at build time, so `npm start` rebuilds when they change.
 */
const optionalText = z
  .string()
  .trim()
  .transform((value) => (value === "" ? undefined : value))
  .optional();
const optional = <T extends z.ZodType<unknown, string>>(schema: T) =>
  optionalText.pipe(schema.optional());
const url = (protocol: RegExp, error: string) => optional(z.url({ protocol, error }));
const email = optional(z.email("must be an email address"));
const matching = (pattern: RegExp, message: string) => optional(z.string().regex(pattern, message));
const secret = (min: number) =>
  optional(z.string().min(min, `must be at least ${min} characters long`));
/** A setting read as a number: "eighty" is refused in words, not as Zod's "received NaN". */
const number = () => z.coerce.number({ error: "must be a number" });
const int = (fallback: number, min = 1, max?: number) => {
  const count = number().int().min(min);
  return (max === undefined ? count : count.max(max)).default(fallback);
};
const onOff = (fallback: "on" | "off") =>
  z
    .enum(["on", "off", "true", "false", "1", "0"], { error: "must be on or off" })
    .default(fallback)
    .transform((value) => value === "on" || value === "true" || value === "1");
/** A duration in seconds; fractions are allowed (tests use short ones). */
const seconds = (fallback: number) => number().positive().max(3600).default(fallback);

/**
 * `news@example.com` or `Name <news@example.com>`: no line breaks, quotes or
 * angle brackets in the name, so the From header cannot be split or spoofed.
 */
const mailFromPattern =
  /^(?:[^\r\n<>"@]{1,80} <[^\s<>"@]{1,64}@[^\s<>"@]{1,190}>|[^\s<>"@]{1,64}@[^\s<>"@]{1,190})$/;
const snsTopic = "arn:aws[a-z-]*:sns:[a-z0-9-]+:\\d{12}:[A-Za-z0-9_-]+";

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
    const refuse = (message: string) => {
      ctx.addIssue({ code: "custom", message });
      return z.NEVER;
    };
    if (value === undefined || value === "" || value === "false" || value === "0") return false;
    if (value === "true")
      return refuse(
        "true is no longer accepted: it let any client forge its address. Give the number of proxies in front of the server (e.g. 1) or their addresses (e.g. 127.0.0.1, or 10.0.0.0/8)",
      );
    if (/^\d+$/.test(value))
      return Number(value) > 10 ? refuse("at most 10 proxy hops") : Number(value);
    const entries = value.split(",").map((entry) => entry.trim());
    const invalid = entries.filter((entry) => !isAddressOrRange(entry));
    if (invalid.length === 0) return entries;
    return refuse(`"${invalid.join('", "')}" is not a hop count, an IP address or a CIDR range`);
  });

const envSchema = z
  .object({
    NODE_ENV: z.enum(["development", "production", "test"]).default("development"),
    HOST: z.string().min(1).default("0.0.0.0"),
    PORT: number().int().min(0).max(65535).default(3000),
    SHARE_PORT: onOff("off"),
    DATA_DIR: z.string().min(1).default("./data"),
    // Relative to the project's folder; the tests build into a folder of their own.
    BUILD_DIR: optionalText.transform((value) => value ?? "build"),
    CLIENT_ROOT: optionalText,
    DATABASE_URL: matching(/^postgres(ql)?:\/\//, "must start with postgres:// or postgresql://"),
    DATABASE_STATEMENT_TIMEOUT_SECONDS: seconds(10),
    COOKIE_SECRET: secret(32),
    SITE_URL: optionalText.pipe(
      z
        .url({ protocol: /^https?$/, error: "must be an absolute http(s) URL", abort: true })
        .refine(
          (url) => /^\/*$/.test(new URL(url).pathname) && !/[?#]/.test(url),
          "must be the site's origin alone, such as https://example.com: the site is served from its root",
        )
        .transform((url) => url.replace(/\/+$/, ""))
        .optional(),
    ),
    SITE_OWNER_NAME: optional(personName),
    OWNER_LINKEDIN_URL: url(/^https$/, "must be an https URL"),
    CONTACT_EMAIL: email,
    CHATBOT_SCRIPT_URL: url(/^https$/, "must be an https URL"),
    CHATBOT_BOT_ID: optionalText,
    TRUST_PROXY: trustProxy,
    RATE_LIMIT_WRITES_PER_VISITOR: int(60),
    RATE_LIMIT_WRITES_PER_IP: int(600),
    RATE_LIMIT_WINDOW_SECONDS: int(60),
    HEADERS_TIMEOUT_SECONDS: seconds(10),
    REQUEST_TIMEOUT_SECONDS: seconds(30),
    IDLE_TIMEOUT_SECONDS: seconds(30),
    KEEP_ALIVE_TIMEOUT_SECONDS: seconds(72),
    SMTP_URL: url(/^smtps?$/, "must be an smtp:// or smtps:// URL"),
    MAIL_FROM: matching(
      mailFromPattern,
      'must be an address, or a name and an address: "Engage with Engineer <news@example.com>"',
    ),
    MAIL_RATE_PER_MINUTE: int(60, 0, 100_000),
    MAIL_CONNECTIONS: int(4, 1, 20),
    BOUNCE_ADDRESS: email,
    BOUNCE_IMAP_URL: optional(
      z
        .url({ protocol: /^imaps?$/, error: "must be an imap:// or imaps:// URL" })
        .refine((url) => new URL(url).username !== "", "must name the mailbox's user"),
    ),
    BOUNCE_IMAP_POLL_SECONDS: int(300, 10, 86_400),
    DKIM_KEY_FILE: optionalText,
    SES_SNS_TOPIC_ARN: matching(
      new RegExp(`^${snsTopic}(\\s*,\\s*${snsTopic})*$`),
      "must be one or more SNS topic ARNs (arn:aws:sns:REGION:ACCOUNT:NAME), comma separated",
    ),
    POSTMARK_WEBHOOK_SECRET: secret(24),
    SUBSCRIBE_CONFIRMATIONS_PER_IP_PER_HOUR: int(5),
    MODERATION: z.enum(["off", "first", "all"]).default("off"),
    COMMENT_MIN_SECONDS: number().min(0).max(600).default(3),
    COMMENT_MAX_LINKS: int(2, 0, 50),
    COMMENT_DUPLICATE_MINUTES: int(10, 0, 10_080),
    HOLD_LINKS_FROM_NEW: onOff("on"),
    SPAM_MODEL_FILE: optional(z.string()),
    OWNER_EMAIL: email,
    NOTIFY_COMMENTS: optional(
      z.enum(["each", "hourly", "off"], { error: "must be each, hourly or off" }),
    ),
    WEBHOOK_URL: url(/^https?$/, "must be an absolute http:// or https:// URL"),
    WEBHOOK_SECRET: secret(32),
    ENQUIRIES_PER_HOUR: int(5, 1, 1000),
    ENQUIRY_RETENTION_DAYS: int(365, 1, 3650),
    FEDIVERSE_HANDLE: matching(
      /^[a-z0-9_]{1,30}$/i,
      "must be 1 to 30 letters, digits or underscores",
    ),
    ALLOW_PRIVATE_ADDRESSES_IN_TESTS: onOff("off"),
    ANALYTICS: onOff("on"),
    ANALYTICS_RAW_DAYS: int(30, 1, 3650),
    ANALYTICS_VIEWS_PER_MINUTE_PER_IP: int(120),
    BOOKING_TIMEZONE: optional(
      z
        .string()
        .refine(isTimeZone, "must be an IANA time zone, such as Europe/London or Asia/Kolkata"),
    ),
    BOOKING_MEETING_URL: url(/^https$/, "must be an absolute https:// URL"),
    BOOKING_BUSY_CALENDAR_URL: url(/^(https?|webcal)$/, "must be an http(s):// or webcal:// URL"),
    BOOKINGS_PER_HOUR: int(5, 1, 1000),
    BOOKING_PENDING_MAX: int(3, 1, 100),
    BOOKING_RETENTION_DAYS: int(180, 1, 3650),
    ASSISTANT_QUESTIONS_PER_MINUTE: int(10, 1, 10_000),
    ASSISTANT_QUESTIONS_PER_MINUTE_PER_IP: int(60, 1, 100_000),
    ASSISTANT_QUESTIONS_PER_DAY_PER_IP: int(600, 1, 10_000_000),
    ASSISTANT_RETENTION_DAYS: int(90, 1, 3650),
    ASSISTANT_LLM_URL: url(/^https?$/, "must be an absolute http:// or https:// URL"),
    ASSISTANT_LLM_MODEL: optional(z.string().max(200, "must be at most 200 characters")),
    ASSISTANT_LLM_API_KEY: optionalText,
    ASSISTANT_LLM_TIMEOUT_MS: int(10_000, 500, 120_000),
    ASSISTANT_LLM_ANSWERS_PER_DAY: int(1000, 1, 1_000_000),
    EVENT_STREAMS_MAX: int(10_000),
    EVENT_STREAMS_PER_IP: int(20),
    EVENT_STREAMS_PER_NETWORK: int(1000),
    EVENT_STREAMS_PER_VISITOR: int(10),
    OWNER_SIGN_IN_ATTEMPTS_PER_HOUR: int(20, 1, 10_000),
    EDITIONS_DIR: z.string().min(1).default("./newsletter"),
    LOG_LEVEL: z
      .enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"])
      .default("info"),
    // At full speed an access-log line per read costs a quarter of the reads.
    LOG_SAMPLE_READS: int(100, 1, 1_000_000),
  })
  .superRefine((env, ctx) => {
    const issue = (path: string, message: string) =>
      ctx.addIssue({ code: "custom", path: [path], message });
    if (Boolean(env.CHATBOT_SCRIPT_URL) !== Boolean(env.CHATBOT_BOT_ID))
      issue("CHATBOT_BOT_ID", "CHATBOT_SCRIPT_URL and CHATBOT_BOT_ID must be set together");
    if (env.HEADERS_TIMEOUT_SECONDS > env.REQUEST_TIMEOUT_SECONDS)
      issue(
        "HEADERS_TIMEOUT_SECONDS",
        "must not exceed REQUEST_TIMEOUT_SECONDS (the headers are part of the request)",
      );
    if ((env.NOTIFY_COMMENTS === "each" || env.NOTIFY_COMMENTS === "hourly") && !env.OWNER_EMAIL)
      issue(
        "OWNER_EMAIL",
        `is required with NOTIFY_COMMENTS=${env.NOTIFY_COMMENTS} (the address the mails go to)`,
      );
    const requiredWith = [
      ["WEBHOOK_URL", "WEBHOOK_SECRET", "every call is signed with it"],
      ["ASSISTANT_LLM_URL", "ASSISTANT_LLM_MODEL", "the model it runs, such as llama3.1:8b"],
      ["ASSISTANT_LLM_MODEL", "ASSISTANT_LLM_URL", "the chat-completions endpoint that runs it"],
      ["SHARE_PORT", "DATABASE_URL", "several processes on one port: SQLite is for one process"],
    ] as const;
    for (const [given, needed, why] of requiredWith) {
      if (env[given] && !env[needed]) issue(needed, `is required with ${given} (${why})`);
    }
    if (env.ALLOW_PRIVATE_ADDRESSES_IN_TESTS && env.NODE_ENV !== "test")
      issue(
        "ALLOW_PRIVATE_ADDRESSES_IN_TESTS",
        "is for tests only (NODE_ENV=test): it would let anyone make the site fetch addresses on its own network",
      );
    if (env.NODE_ENV !== "production") return;
    // Over plain http the visitor cookie, or the model's key with every question, can be read.
    const plain = (url?: string) => !!url && !url.startsWith("https:") && !isLoopback(url);
    if (plain(env.SITE_URL))
      issue("SITE_URL", "must be an https URL in production (http is accepted only for localhost)");
    if (env.ASSISTANT_LLM_API_KEY && plain(env.ASSISTANT_LLM_URL))
      issue("ASSISTANT_LLM_URL", "must be https in production with ASSISTANT_LLM_API_KEY");
    const required = {
      SITE_URL: "canonical URLs, sitemap and the same-origin check",
      CONTACT_EMAIL: "the contact links of every page",
      SMTP_URL: "confirmation mails and editions go out through it",
      MAIL_FROM: "confirmation mails and editions go out through it",
    };
    for (const [name, why] of Object.entries(required)) {
      if (!env[name as keyof typeof required]) issue(name, `is required in production (${why})`);
    }
    if (env.DATABASE_URL && !env.COOKIE_SECRET)
      issue(
        "COOKIE_SECRET",
        "is required in production with DATABASE_URL: every instance must share it",
      );
  });

export type Env = z.output<typeof envSchema>;

/** Every variable the site reads, in the order `.env.example` and docs/configuration.md list them. */
export const environmentVariables = Object.keys(envSchema.shape) as (keyof Env)[];

/** The variables, and what loadConfig makes of them (its last lines say how). */
export type Config = ReturnType<typeof loadConfig>;

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
) {
  // A variable set to nothing, as `.env.example` leaves most (an env file copied from it), is unset.
  const given = Object.fromEntries(
    Object.entries(env).filter(([, value]) => value !== undefined && value.trim() !== ""),
  );
  const parsed = envSchema.safeParse(productionRules ? given : { ...given, NODE_ENV: undefined });
  const lines = parsed.success
    ? []
    : parsed.error.issues.map(
        (issue) => `  ${issue.path.join(".") || "environment"}: ${issue.message}`,
      );
  let profile: OwnerProfile | undefined;
  try {
    profile = ownerProfile ?? readOwnerProfile();
  } catch (error) {
    if (!(error instanceof ContentError)) throw error;
    lines.push(`  content/${error.message.replace(/\n/g, "\n  ")}`);
  }
  const production = productionRules && given.NODE_ENV === "production";
  if (production && profile?.sample && !given.SITE_OWNER_NAME) {
    lines.push(
      "  content/owner.md: is still the sample profile that comes with the site. Replace it with your own (README, First run), or set SITE_OWNER_NAME",
    );
  }
  if (production && profile && !runsAsSample(profile, given)) {
    lines.push(...sampleVoiceRefusal(writing ?? writingFolders(given.EDITIONS_DIR)));
  }
  if (!parsed.success || profile === undefined || lines.length > 0)
    throw new ConfigError(`Invalid configuration:\n${lines.join("\n")}`);
  const values = parsed.data;
  const owner = resolveOwner(profile, values);
  const buildDir = path.resolve(projectRoot, values.BUILD_DIR);
  const mailFrom = values.MAIL_FROM ?? "newsletter@localhost";
  return {
    ...values,
    buildDir,
    clientRoot: values.CLIENT_ROOT
      ? path.resolve(values.CLIENT_ROOT)
      : path.join(buildDir, "client"),
    siteUrl: values.SITE_URL ?? `http://localhost:${values.PORT || 3000}`,
    contactEmail: values.CONTACT_EMAIL ?? "contact@example.com",
    databaseKind: values.DATABASE_URL ? ("postgres" as const) : ("sqlite" as const),
    // Readers know the person, not the address: "Asha Rao from Engage with Engineer <news@site>".
    mailFrom: mailFrom.includes("<")
      ? mailFrom
      : `${owner.name} from Engage with Engineer <${mailFrom}>`,
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
    .replace(/^_+/, "")
    .slice(0, 30)
    .replace(/_+$/, "");
  return handle === "" ? "site" : handle;
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
