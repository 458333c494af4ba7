import { existsSync } from "node:fs";
import path from "node:path";
import { type Config, environmentVariables } from "../config.ts";
import { defaultSpamModelFile } from "../moderation/spam/filter.ts";
import { dkimKeyFileOf } from "../outbox/dkim.ts";

const hidden = "•••••• (set, hidden)";

/** A URL with its password replaced; text that is not a URL is hidden whole. */
function withoutPassword(value: string): string {
  const url = URL.parse(value);
  if (!url) return hidden;
  if (url.password) url.password = "******";
  return url.toString();
}

/**
 * A webhook's address often is its secret: Slack, Discord and many others put
 * the token in the path or the query. Only where the calls go is shown.
 */
function originOnly(value: string): string {
  // A webcal:// calendar is https (a URL of another scheme has no origin).
  const url = URL.parse(value.replace(/^webcal:/i, "https:"));
  if (!url) return hidden;
  const rest = url.username || url.pathname !== "/" || url.search || url.hash;
  return `${url.origin}${rest ? "/•••••• (path hidden)" : "/"}`;
}

/** Settings whose value is a secret, by name. */
const secretName = /SECRET|PASSWORD|TOKEN|_KEY$/;

/**
 * The settings the server runs with, for the console's Health view: every
 * variable of `.env.example`, with secrets masked. Secrets (the cookie's, the
 * webhook's) are never shown; URLs that carry a password (database, mail
 * server, bounce mailbox) are shown without it, and the webhook's and the busy calendar's
 * addresses by their origin alone.
 */
export function maskedSettings(config: Config): { name: string; value: string | null }[] {
  // Unset variables whose value in force is worked out from others: that value, marked;
  // and those whose absence means something, said in words. Null only for what is off.
  const dataDir = path.resolve(config.DATA_DIR);
  const dkimKey = dkimKeyFileOf(config);
  const effective: Partial<Record<(typeof environmentVariables)[number], string>> = {
    NOTIFY_COMMENTS: `${config.notifyComments} (default)`,
    SITE_URL: `${config.siteUrl} (default)`,
    CONTACT_EMAIL: `${config.contactEmail} (default)`,
    MAIL_FROM: `${config.mailFrom} (default)`,
    CLIENT_ROOT: `${config.clientRoot} (default)`,
    COOKIE_SECRET: `•••••• (generated, kept in ${path.join(dataDir, "cookie-secret")})`,
    SPAM_MODEL_FILE: `${defaultSpamModelFile} (default)`,
    DATABASE_URL: `not set: SQLite, ${path.join(dataDir, "engage.sqlite")}`,
    SMTP_URL: `not set: mails are written to ${path.join(dataDir, "outbox")}`,
    DKIM_KEY_FILE: existsSync(dkimKey)
      ? `${dkimKey} (default)`
      : `not set: no key at ${dkimKey}, so mail goes out unsigned (docs/mail.md, "Signed mail")`,
    OWNER_EMAIL: `not set: CONTACT_EMAIL (${config.contactEmail}) is used`,
  };
  return environmentVariables.map((name) => {
    const value = config[name];
    if (value === undefined || value === null) return { name, value: effective[name] ?? null };
    if (secretName.test(name)) return { name, value: hidden };
    if (name === "WEBHOOK_URL" || name === "BOOKING_BUSY_CALENDAR_URL")
      return { name, value: originOnly(String(value)) };
    // Any other address with a password in it (the bounce mailbox's) is shown without it too.
    const text = String(value);
    if (
      ["DATABASE_URL", "SMTP_URL", "ASSISTANT_LLM_URL"].includes(name) ||
      URL.parse(text)?.password
    ) {
      return { name, value: withoutPassword(text) };
    }
    // On-off settings as the docs write them (TRUST_PROXY's false is its own word).
    if (typeof value === "boolean" && name !== "TRUST_PROXY") {
      return { name, value: value ? "on" : "off" };
    }
    return { name, value: Array.isArray(value) ? value.join(", ") : String(value) };
  });
}
