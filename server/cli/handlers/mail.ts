import { emailSchema } from "../../../contract/api.ts";
import { plural } from "../../../contract/plural.ts";
import { createReplyWatches, replyStopKey } from "../../comments/reply-watches.ts";
import { readBounceMailbox } from "../../newsletter/bounce-mailbox.ts";
import { createListHealth } from "../../newsletter/list-health.ts";
import { suppressionActions } from "../../newsletter/owner-actions.ts";
import {
  createDkimKey,
  type DkimAlgorithm,
  dkimDnsRecord,
  dkimKeyFileOf,
  readDkimKey,
  writeDkimKey,
} from "../../outbox/dkim.ts";
import { createSuppressions } from "../../outbox/suppressions.ts";
import { verpKeyOf } from "../../outbox/verp.ts";
import { AdminError, type CommandContext, ownerAction, usageError } from "../command.ts";
import { listedPages } from "../table.ts";

export async function mailDkim({ values, config, stdout }: CommandContext) {
  const file = dkimKeyFileOf(config);
  const algorithm = (values.algorithm ?? "rsa") as string;
  if (algorithm !== "rsa" && algorithm !== "ed25519") {
    throw usageError(`--algorithm must be rsa or ed25519, not "${algorithm}".`);
  }
  const domain =
    typeof values.domain === "string"
      ? values.domain
      : (/@([^>\s]+)>?$/.exec(config.mailFrom)?.[1] ?? "");
  if (!/^[a-z0-9-]+(\.[a-z0-9-]+)+$/i.test(domain)) {
    throw usageError(
      `The signing domain "${domain}" is not a domain name: set MAIL_FROM, or give --domain.`,
    );
  }
  const now = new Date();
  const selector =
    typeof values.selector === "string"
      ? values.selector
      : `ewe${now.getUTCFullYear()}${String(now.getUTCMonth() + 1).padStart(2, "0")}`;
  if (!/^[a-z0-9][a-z0-9-]{0,62}$/i.test(selector)) {
    throw usageError(`--selector must be a DNS label (letters, digits, -), not "${selector}".`);
  }
  let key = values.replace ? null : readDkimKey(file);
  const made = key === null;
  if (!key) {
    key = createDkimKey({ algorithm: algorithm as DkimAlgorithm, domain, selector });
    writeDkimKey(file, key, { replace: Boolean(values.replace) });
  }
  const record = dkimDnsRecord(key);
  stdout.write(
    `${made ? "Made" : "There is already"} a DKIM key (${key.algorithm === "rsa" ? "RSA, 2048 bits" : "Ed25519"}) in ${file}${made ? "" : " (--replace makes a new one)"}.
Every mail is signed with it from the server's next start. Publish this TXT record:

${record.name}  TXT  "${record.value}"

docs/mail.md, "Signed mail", has SPF and DMARC beside it.
`,
  );
}

export async function mailBounces({ config, stdout, store, secret, engagement }: CommandContext) {
  if (!config.BOUNCE_IMAP_URL || !config.BOUNCE_ADDRESS) {
    throw usageError(
      'Set BOUNCE_ADDRESS and BOUNCE_IMAP_URL first (docs/mail.md, "Bounces and complaints").',
    );
  }
  const db = await store();
  const health = createListHealth({
    store: db,
    suppressions: createSuppressions(db),
    subscribers: (await engagement()).subscribers,
    bounceAddress: config.BOUNCE_ADDRESS,
    verpKey: verpKeyOf(await secret()),
  });
  let round: Awaited<ReturnType<typeof readBounceMailbox>>;
  try {
    round = await readBounceMailbox(config.BOUNCE_IMAP_URL, health);
  } catch (error) {
    throw new AdminError(`The bounce mailbox could not be read: ${(error as Error).message}`);
  }
  stdout.write(
    `Read ${plural(round.read, "mail")}: ${round.acted} acted on, ${round.ignored} ignored (not a report, or not for one of our return paths)${round.kept ? `, ${round.kept} kept for the next round` : ""}.\n`,
  );
}

export const suppressionsList = listedPages(
  async ({ store }, page) => createSuppressions(await store()).list(page),
  ["email", "reason", "source", "since", "detail"],
  (s) => [s.email, s.reason, s.source, s.createdAt, s.detail ?? ""],
);

export const suppressionsLift = ownerAction(
  ({ positionals }) => {
    const email = emailSchema.safeParse(positionals[0] ?? "");
    if (!email.success) throw usageError("EMAIL must be an email address.");
    return email.data;
  },
  async ({ store, actor, secret }, email) => {
    const db = await store();
    const { resume } = createReplyWatches(db, {
      clock: () => new Date(),
      // A made-up secret would not find the stop the site keyed with its own.
      mailboxKey: replyStopKey(await secret()),
    });
    return suppressionActions(createSuppressions(db), resume).lift(actor, email);
  },
  (email) => `Lifted the suppression of ${email}: mail may go to it again.\n`,
  (email) => `${email} is not suppressed, and its reader did not stop reply mails.`,
);
