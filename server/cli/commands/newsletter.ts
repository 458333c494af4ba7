import { type Command, lazily } from "../command.ts";

const handlers = () => import("../handlers/newsletter.ts");

export const newsletterCommands: Command[] = [
  {
    name: "newsletter preview",
    usage: "FILE [--out HTML]",
    summary: "render an edition to an HTML file to open in a browser",
    help: `Renders the edition FILE (Markdown with a "subject" in its frontmatter; see
docs/mail.md, "Newsletter editions") in the mail template and writes the HTML,
by default to DATA_DIR/preview/<name>.html, printing where. The unsubscribe
link in it is a sample. Links and images are made absolute from SITE_URL;
one that leads nowhere on the built site, or is no web address, is printed
as a warning (as "newsletter test" and "newsletter send" do).

  --out HTML   write the HTML here instead`,
    arguments: ["FILE"],
    options: { out: { type: "string" } },
    run: lazily(handlers, "newsletterPreview"),
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
    run: lazily(handlers, "newsletterTest"),
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
    run: lazily(handlers, "newsletterSend"),
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
    run: lazily(handlers, "newsletterReconfirm"),
  },
  {
    name: "newsletter stats",
    usage: "[SLUG] [--json]",
    summary: "what each edition did: accepted, bounced, complaints, unsubscribes, clicks per link",
    help: `For each edition sent (or the one named SLUG, its file name without .md):
the copies handed to the mail server, those it accepted, those that bounced
(at once or in a report later), complaints, readers who unsubscribed within 7
days of their copy, and how many times each of its links was followed. The
clicks are counted per link only: nothing records who followed one, and
opening a mail is not tracked at all (docs/mail.md, "What an edition did").

  --json   the same as JSON, for scripts`,
    arguments: ["SLUG"],
    argumentsOptional: true,
    options: { json: { type: "boolean" } },
    run: lazily(handlers, "newsletterStats"),
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
    run: lazily(handlers, "newsletterStatus"),
  },
];
