import { type Config, environmentVariables } from "../config.ts";

const hidden = "•••••• (set, hidden)";

/** A URL with its password replaced; text that is not a URL is hidden whole. */
function withoutPassword(value: string): string {
  try {
    const url = new URL(value);
    if (url.password) url.password = "******";
    return url.toString();
  } catch {
    return hidden;
  }
}

/**
 * The settings the server runs with, for the console's Health view: every
 * variable of `.env.example`, with secrets masked. The cookie secret is never
 * shown; URLs that carry a password (database, mail server) are shown without it.
 */
export function maskedSettings(config: Config): { name: string; value: string | null }[] {
  // Unset variables whose value in force is worked out from others: that value, marked.
  const effective: Partial<Record<(typeof environmentVariables)[number], string>> = {
    NOTIFY_COMMENTS: config.notifyComments,
    SITE_URL: config.siteUrl,
    CONTACT_EMAIL: config.contactEmail,
    MAIL_FROM: config.mailFrom,
  };
  return environmentVariables.map((name) => {
    const value = config[name];
    if (value === undefined || value === null) {
      const standIn = effective[name];
      return { name, value: standIn === undefined ? null : `${standIn} (default)` };
    }
    if (name === "COOKIE_SECRET") return { name, value: hidden };
    if (name === "DATABASE_URL" || name === "SMTP_URL") {
      return { name, value: withoutPassword(String(value)) };
    }
    return { name, value: Array.isArray(value) ? value.join(", ") : String(value) };
  });
}
