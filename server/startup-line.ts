import path from "node:path";
import { type Config, ConfigError, loadConfig } from "./config.ts";

/** loadConfig at a command's start: a refused setting ends it with the message alone, exit 1. */
export function loadConfigOrExit(...args: Parameters<typeof loadConfig>): Config {
  try {
    return loadConfig(...args);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    console.error(error.message);
    process.exit(1);
  }
}

type Summary = Pick<
  Config,
  | "siteUrl"
  | "SITE_URL"
  | "HOST"
  | "PORT"
  | "SMTP_URL"
  | "DATA_DIR"
  | "OWNER_EMAIL"
  | "databaseKind"
>;

/** `smtp://user:secret@mail.example.com:587` as `smtp://mail.example.com:587`: no password in a terminal. */
function mailServer(smtpUrl: string): string {
  const url = new URL(smtpUrl);
  return `${url.protocol}//${url.host}`;
}

/** A value as a shell reads it back whole: quoted when it holds more than a path's plain characters. */
function shellWord(value: string): string {
  return /^[\w./:@%+=,-]+$/.test(value) ? value : `'${value.replaceAll("'", `'\\''`)}'`;
}

/**
 * The lines a person reads when the server has started, beside the JSON log:
 * where the site is, where mail goes, how to reach the console. They go to
 * stderr, so stdout stays one JSON object per line for a log collector.
 */
export function startupLines(config: Summary): string[] {
  const mail = config.SMTP_URL
    ? `through ${mailServer(config.SMTP_URL)}`
    : `to .eml files in ${path.join(config.DATA_DIR, "outbox")} (SMTP_URL is not set)`;
  // The command reads its own shell's settings: without SITE_URL it makes the
  // link from PORT (another shell's would point at port 3000), and on SQLite it
  // signs in through the database under DATA_DIR (another shell's has none).
  const settings = [
    config.SITE_URL || [0, 3000].includes(config.PORT) ? "" : `PORT=${config.PORT} `,
    config.databaseKind === "sqlite" && config.DATA_DIR !== "./data"
      ? `DATA_DIR=${shellWord(config.DATA_DIR)} `
      : "",
  ].join("");
  const login = `\`${settings}npm run admin -- login\``;
  const signIn = config.OWNER_EMAIL
    ? `a link mailed to ${config.OWNER_EMAIL} from its sign-in page, or ${login}`
    : login;
  return [
    `Engage with Engineer is running at ${config.siteUrl} (listening on ${config.HOST}:${config.PORT}, data in ${config.databaseKind === "postgres" ? "PostgreSQL" : `SQLite under ${config.DATA_DIR}`}).`,
    `Mail goes ${mail}.`,
    `The console is at ${config.siteUrl}/admin: sign in with ${signIn}.`,
  ];
}
