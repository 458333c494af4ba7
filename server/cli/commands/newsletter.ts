import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { emailSchema } from "../../../contract/api.ts";
import { plural } from "../../../contract/plural.ts";
import type { Config } from "../../config.ts";
import { newToken } from "../../engagement/subscribers-repository.ts";
import { editionLinkProblems } from "../../newsletter/edition-links.ts";
import { type Edition, EditionError, readEdition } from "../../newsletter/editions.ts";
import { createEditionsRepository } from "../../newsletter/editions-repository.ts";
import { editionMail } from "../../newsletter/messages.ts";
import { createMailer } from "../../outbox/mailer.ts";
import { audited, type Command, exitCodes, type Output, usageError } from "../command.ts";
import { AdminError } from "../sqlite-files.ts";
import { formatTable } from "../table.ts";

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
    if (error instanceof EditionError) throw new AdminError(error.message);
    throw error;
  }
  for (const problem of editionLinkProblems(edition.links, config)) {
    stderr.write(`Warning: ${problem}\n`);
  }
  return edition;
}

export const newsletterCommands: Command[] = [
  {
    name: "newsletter preview",
    usage: "FILE [--out HTML]",
    summary: "render an edition to an HTML file to open in a browser",
    help: `Renders the edition FILE (Markdown with a "subject" in its frontmatter; see
the README, "Newsletter editions") in the mail template and writes the HTML,
by default to DATA_DIR/preview/<name>.html, printing where. The unsubscribe
link in it is a sample. Links and images are made absolute from SITE_URL;
one that leads nowhere on the built site, or is no web address, is printed
as a warning (as "newsletter test" and "newsletter send" do).

  --out HTML   write the HTML here instead`,
    arguments: ["FILE"],
    options: { out: { type: "string" } },
    async run({ values, positionals, config, stdout, stderr }) {
      const edition = editionOf(positionals[0] ?? "", config, stderr);
      const mail = editionMail(
        edition,
        { to: "preview@example.com", token: "preview" },
        config.siteUrl,
      );
      const out =
        typeof values.out === "string"
          ? path.resolve(values.out)
          : path.resolve(config.DATA_DIR, "preview", `${edition.slug}.html`);
      mkdirSync(path.dirname(out), { recursive: true });
      writeFileSync(out, mail.html);
      stdout.write(`Subject: ${mail.subject}\nWrote ${out}\n`);
      return exitCodes.ok;
    },
  },
  {
    name: "newsletter test",
    usage: "FILE --to ADDRESS",
    summary: "send one copy of an edition to ADDRESS",
    help: `Sends one copy of the edition FILE to ADDRESS at once, through SMTP_URL (or
into DATA_DIR/outbox/ when it is not set), with "[Test]" before the subject.
Nothing is recorded: the edition can still be sent to everyone. Its
unsubscribe links lead nowhere. Links that lead nowhere are warned about
first, as by "newsletter preview".

  --to ADDRESS   where to send the copy`,
    arguments: ["FILE"],
    options: { to: { type: "string" } },
    async run({ values, positionals, config, stdout, stderr, store }) {
      const to = emailSchema.safeParse(typeof values.to === "string" ? values.to : "");
      if (!to.success) throw usageError("--to ADDRESS is required and must be an email address.");
      const edition = editionOf(positionals[0] ?? "", config, stderr);
      // Opened first: the copy is recorded in the audit trail, so it needs the database.
      await store();
      const mailer = createMailer(
        { smtpUrl: config.SMTP_URL, from: config.mailFrom, dataDir: config.DATA_DIR },
        { info: (_object, message) => stdout.write(`${message}\n`) },
      );
      try {
        const mail = editionMail(edition, { to: to.data, token: newToken() }, config.siteUrl);
        await mailer.send({ ...mail, subject: `[Test] ${mail.subject}` });
      } finally {
        mailer.close();
      }
      // The edition, not the address: the trail records what was done, not whom it reached.
      await audited(store, "newsletter test", edition.slug);
      stdout.write(`Sent a test copy of ${edition.slug} to ${to.data}.\n`);
      return exitCodes.ok;
    },
  },
  {
    name: "newsletter send",
    usage: "FILE [--yes]",
    summary: "queue an edition for every confirmed subscriber, after asking",
    help: `Queues the edition FILE for every confirmed subscriber. The running server
sends the queue at MAIL_RATE_PER_MINUTE per instance, resuming after a
restart; "newsletter status" shows the progress. An edition is named by its
file name and reaches an address once: sending the same file again queues
only those who confirmed since. A changed file under a used name is refused.

At a terminal it first asks, naming the edition and how many confirmed
subscribers it reaches; without one (a script, cron) it sends only with --yes.
Try "newsletter test" first.

  --yes   send without asking`,
    arguments: ["FILE"],
    options: { yes: { type: "boolean" } },
    async run({ values, positionals, config, stdout, stderr, store, engagement, confirm }) {
      const edition = editionOf(positionals[0] ?? "", config, stderr);
      const subscribers = await (await engagement()).subscribers.count();
      const reach = plural(subscribers, "confirmed subscriber");
      if (!values.yes) {
        if (!confirm) {
          throw usageError(
            `This queues "${edition.subject}" (${edition.slug}) for every confirmed subscriber: ${reach}. Nothing was sent. Add --yes to send it, or run it at a terminal to be asked.`,
          );
        }
        if (!(await confirm(`Send "${edition.subject}" (${edition.slug}) to ${reach} now?`))) {
          throw new AdminError("Nothing was sent.");
        }
      }
      const editionStore = createEditionsRepository(await store());
      let saved: { id: number; created: boolean };
      try {
        saved = await editionStore.saveEdition(edition);
      } catch (error) {
        throw new AdminError((error as Error).message);
      }
      const queued = await editionStore.queueEdition(saved.id);
      await audited(store, "newsletter send", `${edition.slug} (${queued} queued)`);
      stdout.write(
        `Queued ${edition.slug} ("${edition.subject}") for ${plural(queued, "subscriber")}${saved.created ? "" : " (sent before: only new subscribers)"}.\n`,
      );
      return exitCodes.ok;
    },
  },
  {
    name: "newsletter reconfirm",
    usage: "[--yes]",
    summary: "ask imported subscribers to confirm, after asking you",
    help: `Queues a confirmation mail for each subscriber imported from the original
site ("import --from original") who is still pending and had no such mail in
the last 24 hours. The mail says where the address comes from and asks its
owner to confirm; the running server sends the queue at MAIL_RATE_PER_MINUTE.
An address that does not confirm gets no newsletter and is deleted a week
after its mail, as any unconfirmed address is.

At a terminal it first asks how many it will mail; without one it needs --yes.

  --yes   queue without asking`,
    options: { yes: { type: "boolean" } },
    async run({ values, stdout, store, engagement, confirm }) {
      const subscribers = (await engagement()).subscribers;
      const waiting = (await subscribers.reconfirmable().execute()).length;
      if (waiting === 0) {
        stdout.write("No imported subscriber is waiting to be asked.\n");
        return exitCodes.ok;
      }
      const reach = `${waiting} imported subscriber${waiting === 1 ? "" : "s"}`;
      if (!values.yes) {
        if (!confirm) {
          throw usageError(
            `This mails ${reach} a request to confirm. Nothing was sent. Add --yes to send it, or run it at a terminal to be asked.`,
          );
        }
        if (!(await confirm(`Ask ${reach} to confirm their subscription now?`))) {
          throw new AdminError("Nothing was sent.");
        }
      }
      const queued = await subscribers.reconfirmImported();
      await audited(store, "newsletter reconfirm", `${queued} queued`);
      stdout.write(
        `Queued a request to confirm for ${queued} imported subscriber${queued === 1 ? "" : "s"}.\n`,
      );
      return exitCodes.ok;
    },
  },
  {
    name: "newsletter status",
    usage: "[--json]",
    summary: "progress of each edition: queued, sent, failed",
    help: `Shows every edition queued so far with the number of its messages still
queued, sent, failed (the SMTP server refused them for good, or temporary
failures went on for hours) and cancelled (the address unsubscribed first),
then each failure with the server's answer.

  --json   the same as JSON, for scripts`,
    options: { json: { type: "boolean" } },
    async run({ values, stdout, store }) {
      const editionStore = createEditionsRepository(await store());
      const editions = await editionStore.progress();
      const failures = await Promise.all(
        editions.map(async (e) => ({ slug: e.slug, failed: await editionStore.failures(e.slug) })),
      );
      if (values.json) {
        stdout.write(`${JSON.stringify({ editions, failures }, null, 2)}\n`);
        return exitCodes.ok;
      }
      if (editions.length === 0) {
        stdout.write("No edition has been queued yet.\n");
        return exitCodes.ok;
      }
      stdout.write(
        formatTable(
          ["edition", "subject", "queued", "sent", "failed", "cancelled"],
          editions.map((e) => [
            e.slug,
            e.subject,
            String(e.queued),
            String(e.sent),
            String(e.failed),
            String(e.cancelled),
          ]),
        ),
      );
      for (const { slug, failed } of failures) {
        for (const failure of failed) {
          stdout.write(`${slug}\t${failure.email}\t${failure.last_error ?? ""}\n`);
        }
      }
      return exitCodes.ok;
    },
  },
];
