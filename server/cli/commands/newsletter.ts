import { group } from "../command.ts";

const handlers = () => import("../handlers/newsletter.ts");

export const newsletterCommands = group(handlers, [
  {
    name: "newsletter preview",
    usage: "FILE [--out HTML]",
    summary: "render an edition to an HTML file to open in a browser",
    help: `Renders the edition FILE (Markdown with a "subject" in its frontmatter; see
docs/mail.md, "Newsletter editions") in the mail template and writes the HTML,
by default to DATA_DIR/preview/<name>.html, printing where. The unsubscribe
link in it is a sample. Links and images are made absolute from SITE_URL;
one that leads nowhere on the built site, or is no web address, is printed
as a warning (as "newsletter send" does).

  --out HTML   write the HTML here instead (in a folder that exists)`,
  },
  {
    name: "newsletter send",
    usage: "FILE [--test ADDRESS | --at TIME] [--yes]",
    summary: "send an edition to every confirmed subscriber, now or later, or a test copy",
    help: `Queues the edition FILE for every confirmed subscriber. The running server
sends the queue at MAIL_RATE_PER_MINUTE per instance, resuming after a
restart; "newsletter status" shows the progress. An edition is named by its
file name and reaches an address once: sending the same file again queues
only those who confirmed since. A changed file under a used name is refused.

With --test ADDRESS it sends one copy to ADDRESS at once instead, "[Test]"
before the subject and a line at the top saying it is a test. Nothing is
recorded: the copy is in none of the edition's figures, and the edition can
still be sent to everyone. Its unsubscribe links lead nowhere.

With --at TIME the edition is stored as it is now and sent at TIME (ISO 8601
with its offset: 2026-12-08T07:00:00Z, 2026-12-08T08:00:00+01:00) to every
confirmed subscriber then, by whichever server instance looks first (within
a few seconds of TIME); it goes once, whatever instances stop or start.
"newsletter cancel" cancels it until it starts; --at again changes the time.

Links that lead nowhere are warned about first, as by "newsletter preview".
At a terminal it asks before sending or scheduling, naming the edition and
how many confirmed subscribers it reaches; without one (a script, cron) it
needs --yes. A test copy is sent without asking.

  --test ADDRESS   send one test copy to ADDRESS only
  --at TIME        send at TIME instead of now
  --yes            send without asking`,
  },
  {
    name: "newsletter cancel",
    usage: "SLUG",
    summary: "cancel a scheduled edition that has not started",
    help: `Cancels the sending of the edition SLUG (its file name without .md),
scheduled with "newsletter send --at", if it has not started: nothing of it
goes out, and an edition never sent before is forgotten, so its file may be
changed and scheduled again. Exit code 3 when it is not scheduled, 1 when it
has started going out.`,
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
  },
]);
