import { group } from "../command.ts";

const handlers = () => import("../handlers/mail.ts");

export const mailCommands = group(handlers, [
  {
    name: "mail dkim",
    usage: "[--algorithm rsa|ed25519] [--selector NAME] [--domain DOMAIN] [--replace]",
    summary: "make the DKIM key every mail is signed with, and print its DNS record",
    help: `Makes a DKIM key (2048-bit RSA by default, or Ed25519) and stores it in
DATA_DIR/dkim-key.json (or DKIM_KEY_FILE), readable by its owner alone, as the
cookie secret is. From the next start every mail is signed with it. Prints the
TXT record to publish in the domain's DNS, and prints it again when the key
exists already. docs/mail.md, "Signed mail", explains SPF, DKIM and DMARC.

  --algorithm rsa|ed25519   the kind of key (rsa: every receiver checks it;
                            ed25519: shorter, not yet checked by all)
  --selector NAME           the selector (default: ewe + the year and month)
  --domain DOMAIN           the signing domain (default: MAIL_FROM's)
  --replace                 make a new key over the existing one`,
  },
  {
    name: "mail bounces",
    usage: "",
    summary: "read the bounce mailbox now, as the server does every few minutes",
    help: `Reads the mailbox at BOUNCE_IMAP_URL once: each delivery-status report
(a bounce) and feedback report (a complaint) sent to one of the site's
signed return paths suppresses or counts against its address, then every
mail read is deleted. Prints how many were read, acted on and ignored.`,
  },
  {
    name: "suppressions list",
    usage: "[--json]",
    summary: "addresses no mail goes to, with the reason",
    help: `Lists every suppressed address, newest first, as tab-separated columns:
id (for "suppressions lift --id"), email, reason (hard_bounce, complaint or
soft_bounces: three temporary failures within 30 days), source (smtp,
mailbox, ses or postmark), since, and the receiving server's words with
every address cut out. Nothing is mailed to them: no edition, confirmation
or reply mail. The site keeps no address here, only a keyed digest of it:
email is the address where the site still holds it (a subscriber's, one
left for reply mails), otherwise "an address at DOMAIN (no longer kept)".

  --json   one JSON array instead, for scripts`,
  },
  {
    name: "suppressions lift",
    usage: "EMAIL | --id ID",
    summary: "let mail go to a suppressed address again",
    help: `Removes EMAIL from the suppression list, with its soft bounces, and forgets
that its reader stopped all reply mails (after which no confirmation mail
goes to it), when they ask to have them again. It does not subscribe it
again: a reader who complained was unsubscribed and must subscribe again
themselves, and a reader of reply mails ticks the box under a comment again.
With --id, the row of "suppressions list" with this id, whose address the
site may no longer know (its stop of reply mails, if any, stays).
Exit code 3 when the address was neither suppressed nor stopped.`,
  },
]);
