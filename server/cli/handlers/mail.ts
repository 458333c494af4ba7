import { emailSchema } from "../../../contract/api.ts";
import { shownAddress } from "../../../contract/console-endpoints.ts";
import { plural } from "../../../contract/plural.ts";
import { releaseUndeliverable } from "../../bookings/undeliverable.ts";
import { createReplyWatches, replyKeys } from "../../comments/reply-watches.ts";
import { plainAddress, suppressionKey } from "../../lib/mailbox.ts";
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
  // Run again, it shows the key made before, whatever MAIL_FROM says now.
  let key = values.replace ? null : readDkimKey(file);
  const made = key === null;
  const algorithm = (values.algorithm ?? "rsa") as string;
  if (algorithm !== "rsa" && algorithm !== "ed25519") {
    throw usageError(`--algorithm must be rsa or ed25519, not "${algorithm}".`);
  }
  const domain =
    typeof values.domain === "string"
      ? values.domain
      : (/@([^>\s]+)>?$/.exec(config.mailFrom)?.[1] ?? "");
  if (made && !/^[a-z0-9-]+(\.[a-z0-9-]+)+$/i.test(domain)) {
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

export async function mailBounces(context: CommandContext) {
  const { config, stdout, store, secret, engagement } = context;
  if (!config.BOUNCE_IMAP_URL || !config.BOUNCE_ADDRESS) {
    throw usageError(
      'Set BOUNCE_ADDRESS and BOUNCE_IMAP_URL first (docs/mail.md, "Bounces and complaints").',
    );
  }
  const db = await store();
  const health = createListHealth({
    store: db,
    suppressions: await suppressionsOn(context),
    subscribers: (await engagement()).subscribers,
    bounceAddress: config.BOUNCE_ADDRESS,
    verpKey: verpKeyOf(await secret()),
    // A call whose invitation bounced is released, as the server's own reading does.
    undeliverable: releaseUndeliverable({
      store: db,
      clock: () => new Date(),
      ownerEmail: config.OWNER_EMAIL ?? config.contactEmail,
      woken: () => {},
    }),
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

/** The suppressed addresses, under the site's key: a made-up secret would find none. */
const suppressionsOn = async ({ store, secret }: CommandContext) =>
  createSuppressions(await store(), suppressionKey(await secret()));

export const suppressionsList = listedPages(
  async (context, page) => (await suppressionsOn(context)).list(page),
  ["id", "email", "reason", "source", "since", "detail"],
  (s) => [s.id, shownAddress(s), s.reason, s.source, s.createdAt, s.detail ?? ""],
);

export const suppressionsLift = ownerAction(
  ({ positionals, values }): { email: string } | { id: string } => {
    if (typeof values.id === "string" && positionals.length === 0) return { id: values.id };
    // Typed as the list shows it ("leser@bücher.example") or in punycode: the same mailbox.
    const typed = positionals[0];
    const email = emailSchema.safeParse(plainAddress(typed ?? ""));
    if (!email.success || values.id !== undefined) {
      // A typed address the forms refuse was never mailed, so never suppressed: say so.
      const refused = typed !== undefined && !email.success && values.id === undefined;
      throw usageError(
        `${refused ? `"${typed}" is not an email address the site would mail. ` : ""}Give EMAIL, an email address, or --id ID from suppressions list.`,
      );
    }
    return { email: email.data };
  },
  async (context, which) => {
    const db = await context.store();
    // A made-up secret would not find the stop the site keyed with its own.
    const secret = await context.secret();
    const { resume } = createReplyWatches(db, {
      clock: () => new Date(),
      ...replyKeys(secret),
      addressKey: suppressionKey(secret),
    });
    return suppressionActions(await suppressionsOn(context), resume).lift(context.actor, which);
  },
  (which) => `Lifted the suppression of ${named(which)}: mail may go to it again.\n`,
  (which) =>
    "email" in which
      ? `${which.email} is not suppressed, and its reader did not stop reply mails.`
      : `No suppression has the id ${which.id}.`,
);

const named = (which: { email: string } | { id: string }) =>
  "email" in which ? which.email : `the address of ${which.id}`;
