import { mkdirSync } from "node:fs";
import path from "node:path";
import { emailSchema } from "../../../contract/api.ts";
import { editionSlugSchema, scheduleRequestSchema } from "../../../contract/console.ts";
import { plural } from "../../../contract/plural.ts";
import type { Config } from "../../config.ts";
import { suppressionKey } from "../../lib/mailbox.ts";
import { editionProblems } from "../../newsletter/edition-links.ts";
import { type Edition, EditionError, readEdition } from "../../newsletter/editions.ts";
import { createEditionsRepository } from "../../newsletter/editions-repository.ts";
import { editionMail } from "../../newsletter/messages.ts";
import {
  editionActions,
  subscriberActions,
  testCopyRefused,
} from "../../newsletter/owner-actions.ts";
import { createEditionSchedules } from "../../newsletter/schedules.ts";
import { signedMailer } from "../../outbox/dkim.ts";
import { fillDigests } from "../../outbox/suppressions.ts";
import {
  AdminError,
  agreed,
  type CommandContext,
  exitCodes,
  type Output,
  ownerAction,
  usageError,
  writePrivateFile,
} from "../command.ts";
import { formatTable, printedJson } from "../table.ts";

/**
 * The edition in `file`, rendered for the configured site. What is wrong with
 * its links and images is written to `stderr` first, one warning a line
 * (docs/product.md, "Newsletter"): the owner reads it before anyone else does.
 */
function editionOf(file: string, config: Config, stderr: Output): Edition {
  let edition: Edition;
  try {
    edition = readEdition(path.resolve(file), config.siteUrl);
  } catch (error) {
    if (error instanceof EditionError) {
      throw new AdminError(error.message, error.missing ? exitCodes.notFound : exitCodes.failed);
    }
    throw error;
  }
  for (const problem of editionProblems(edition, config)) {
    stderr.write(`Warning: ${problem}\n`);
  }
  return edition;
}

export async function newsletterPreview({
  values,
  positionals,
  config,
  stdout,
  stderr,
}: CommandContext) {
  const edition = editionOf(positionals[0] ?? "", config, stderr);
  const mail = editionMail(
    edition,
    { to: "preview@example.com", token: "preview" },
    config.siteUrl,
  );
  let out: string;
  if (typeof values.out === "string") {
    out = path.resolve(values.out); // its folder must exist, as for every --out
  } else {
    const folder = path.resolve(config.DATA_DIR, "preview");
    mkdirSync(folder, { recursive: true });
    out = path.join(folder, `${edition.slug}.html`);
  }
  await writePrivateFile(out, (sink) => sink(mail.html));
  stdout.write(`Subject: ${mail.subject}\nWrote ${out}\n`);
}

/** One copy marked as a test to `to` (`newsletter send --test`), signed as the server signs. */
async function sendTestCopy(
  { config, stdout, actor }: CommandContext,
  edition: Edition,
  to: string,
  actions: ReturnType<typeof editionActions>,
) {
  const address = emailSchema.safeParse(to);
  if (!address.success) throw usageError("--test ADDRESS must be an email address.");
  // Without SMTP_URL the copy is a file: say which, so it can be opened.
  const mailer = signedMailer(config, {
    info: (object, message) => {
      const { file } = object as { file?: string };
      stdout.write(
        file
          ? `Wrote the test copy to ${file} (SMTP_URL is not set): open it in a mail program.\n`
          : `${message}\n`,
      );
    },
  });
  try {
    const sent = await actions.test(actor, edition, address.data, mailer);
    if (sent !== "sent") {
      const { notSent } = sent;
      const reason = notSent instanceof Error ? notSent.message : String(notSent);
      throw new AdminError(testCopyRefused(reason), exitCodes.failed);
    }
  } finally {
    mailer.close();
  }
  stdout.write(
    `Sent a test copy of ${edition.slug} to ${address.data}. Nothing is recorded: the edition can still be sent to everyone.\n`,
  );
}

/** An ISO 8601 time with its offset (`--at`), or a usage error saying what is expected. */
function timeOf(value: string): Date {
  const parsed = scheduleRequestSchema.shape.at.safeParse(value);
  if (!parsed.success) {
    throw usageError(
      `--at takes an ISO 8601 time with its offset, e.g. 2026-12-08T07:00:00Z or 2026-12-08T08:00:00+01:00, not "${value}".`,
    );
  }
  return new Date(parsed.data);
}

/** The editions on the configured database. */
async function editionsOn({ store, secret }: CommandContext) {
  const db = await store();
  // The site's own key: a made-up one would give its subscribers wrong digests.
  return createEditionsRepository(db, async () =>
    fillDigests(db.db, suppressionKey(await secret()), ["subscribers"]),
  );
}

/** The edition actions on the configured database. */
async function actionsOn(context: CommandContext) {
  const db = await context.store();
  const editions = await editionsOn(context);
  return editionActions(editions, createEditionSchedules(db), context.config.siteUrl);
}

/** `newsletter send` (commands/newsletter.ts): now, later (--at), or one test copy (--test). */
export async function newsletterSend(context: CommandContext) {
  const { values, positionals, config, stdout, stderr, actor } = context;
  if (values.test !== undefined && values.at !== undefined) {
    throw usageError("--test sends one copy now: give it without --at.");
  }
  const at = typeof values.at === "string" ? timeOf(values.at) : null;
  const edition = editionOf(positionals[0] ?? "", config, stderr);
  // Opened first even for a test copy: its line in the audit trail needs the database.
  const actions = await actionsOn(context);
  if (typeof values.test === "string") return sendTestCopy(context, edition, values.test, actions);
  const editions = await editionsOn(context);
  const { confirmed, suppressed } = await editions.reach();
  const leftOut =
    suppressed > 0
      ? `, not ${plural(suppressed, "suppressed address", "suppressed addresses")}`
      : "";
  const reach = `${plural(confirmed - suppressed, "confirmed subscriber")}${leftOut}`;
  if (at) {
    await agreed(
      context,
      `This schedules "${edition.subject}" (${edition.slug}) for ${at.toISOString()}, to every confirmed subscriber then (${reach} now).`,
      `Send "${edition.subject}" (${edition.slug}) at ${at.toISOString()} (${reach} now)?`,
    );
    const done = await actions.schedule(actor, edition, at);
    if ("invalid" in done) throw usageError(`--at: ${done.invalid}`);
    if ("conflict" in done) throw new AdminError(done.conflict);
    stdout.write(
      `Scheduled ${edition.slug} ("${edition.subject}") for ${done.sendAt}. "newsletter cancel ${edition.slug}" cancels it until it starts.\n`,
    );
    return;
  }
  // Sent before, it goes only to those who have not had it: the count says how many could.
  const sentBefore = (await editions.progress()).some((sent) => sent.slug === edition.slug);
  await agreed(
    context,
    sentBefore
      ? `This queues "${edition.subject}" (${edition.slug}), sent before, for the confirmed subscribers who have not had it yet, of ${reach}.`
      : `This queues "${edition.subject}" (${edition.slug}) for every confirmed subscriber: ${reach}.`,
    sentBefore
      ? `Send "${edition.subject}" (${edition.slug}) to those of ${reach} who have not had it yet, now?`
      : `Send "${edition.subject}" (${edition.slug}) to ${reach} now?`,
  );
  const sent = await actions.send(actor, edition);
  if ("conflict" in sent) throw new AdminError(sent.conflict);
  const earlier = sent.before > 0 ? `, after ${sent.before} queued since its last send` : "";
  stdout.write(
    `Queued ${edition.slug} ("${edition.subject}") for ${plural(sent.queued, "subscriber")}${sent.created ? "" : " (sent before: only new subscribers)"}${earlier}.\n`,
  );
}

export const newsletterCancel = ownerAction(
  ({ positionals }) => {
    const slug = editionSlugSchema.safeParse(positionals[0] ?? "");
    if (!slug.success) throw usageError("SLUG is an edition's file name without .md.");
    return slug.data;
  },
  async (context, slug) => {
    const done = await (await actionsOn(context)).cancel(context.actor, slug);
    if (done === "started") {
      throw new AdminError(`${slug} has started going out: it can no longer be cancelled.`);
    }
    return done === "cancelled" ? done : "not_found";
  },
  (slug) => `Cancelled the sending of ${slug}: nothing of it goes out.\n`,
  (slug) => `${slug} is not scheduled.`,
);

export async function newsletterReconfirm(context: CommandContext) {
  const { config, stdout, engagement, actor } = context;
  const subscribers = (await engagement()).subscribers;
  // Who is asked is who is counted here: the same moment for both.
  const now = new Date();
  const waiting = (await subscribers.reconfirmable(now).execute()).length;
  if (waiting > 0) {
    const reach = plural(waiting, "imported subscriber");
    await agreed(
      context,
      `This mails ${reach} a request to confirm.`,
      `Ask ${reach} to confirm their subscription now?`,
    );
  }
  // With none waiting, a run whose line failed is still written in the trail.
  const { queued, before } = await subscriberActions(subscribers, config.siteUrl).reconfirm(
    actor,
    now,
  );
  if (queued === 0 && before === 0) {
    stdout.write("No imported subscriber is waiting to be asked.\n");
    return;
  }
  const earlier = before > 0 ? `, after ${before} asked since the last reconfirmation` : "";
  stdout.write(
    `Queued a request to confirm for ${plural(queued, "imported subscriber")}${earlier}.\n`,
  );
}

export async function newsletterStatus(context: CommandContext) {
  const { values, stdout, store } = context;
  const db = await store();
  const editionStore = await editionsOn(context);
  const editions = await editionStore.progress();
  const scheduled = await createEditionSchedules(db).pending();
  const failures = await Promise.all(
    editions.map(async (e) => ({ slug: e.slug, failed: await editionStore.failures(e.slug) })),
  );
  if (printedJson({ values, stdout }, { editions, scheduled, failures })) return;
  for (const s of scheduled) {
    stdout.write(
      `${s.slug} is scheduled for ${s.sendAt}${s.started ? " and is being queued now" : ""}.\n`,
    );
  }
  stdout.write(
    formatTable(
      ["edition", "subject", "queued", "sent", "failed", "cancelled"],
      editions.map((e) => [e.slug, e.subject, e.queued, e.sent, e.failed, e.cancelled]),
      { empty: "No edition has been queued yet." },
    ),
  );
  for (const { slug, failed } of failures) {
    for (const failure of failed) {
      stdout.write(`${slug}\t${failure.email}\t${failure.last_error ?? ""}\n`);
    }
  }
}

export async function newsletterStats(context: CommandContext) {
  const { values, positionals, stdout } = context;
  const slug = positionals[0];
  const editions = (await (await editionsOn(context)).progress()).filter(
    (e) => slug === undefined || e.slug === slug,
  );
  if (slug !== undefined && editions.length === 0) {
    throw new AdminError(`No edition "${slug}" has been sent.`, exitCodes.notFound);
  }
  const figures = editions.map((e) => ({
    slug: e.slug,
    subject: e.subject,
    sent: e.sent + e.failed,
    accepted: e.sent,
    bounced: e.bounced,
    complaints: e.complaints,
    unsubscribes: e.unsubscribes,
    links: e.links,
  }));
  if (printedJson({ values, stdout }, figures)) return;
  stdout.write(
    formatTable(
      ["edition", "sent", "accepted", "bounced", "complaints", "unsubscribed in 7 days"],
      figures.map((f) => [f.slug, f.sent, f.accepted, f.bounced, f.complaints, f.unsubscribes]),
      { empty: "No edition has been sent yet.", names: 1 },
    ),
  );
  for (const f of figures) {
    if (f.links.length === 0) continue;
    stdout.write(`\nClicks in ${f.slug}:\n`);
    for (const link of f.links) stdout.write(`${String(link.clicks).padStart(7)}  ${link.url}\n`);
  }
}
