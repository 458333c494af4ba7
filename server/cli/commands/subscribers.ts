import { group } from "../command.ts";

const handlers = () => import("../handlers/subscribers.ts");

export const subscriberCommands = group(handlers, [
  {
    name: "subscribers list",
    usage: "[--json]",
    summary: "every address with its state: pending or confirmed",
    help: `Lists every address, oldest first, as tab-separated columns: email, status
(pending until its owner follows the confirmation link, then confirmed),
created_at and confirmed_at. Only confirmed addresses receive editions and
appear in "subscribers export". Pending addresses are forgotten a week after
their last confirmation mail.

  --json   one JSON array instead, for scripts`,
  },
  {
    name: "subscribers export",
    usage: "[--out FILE]",
    summary: "the subscribers as CSV, each with an unsubscribe link",
    help: `Prints every confirmed subscriber as CSV (RFC 4180): email, subscribed_at
(when they confirmed, ISO-8601 UTC) and unsubscribe_url, oldest first. Put each subscriber's unsubscribe_url into
the mailings you send them. The links start with SITE_URL.
An address that
starts with + or - is written with a leading ' (so that a spreadsheet does not
take it for a formula): remove it before mailing.

  --out FILE   write to FILE (readable by its owner only) instead of the terminal`,
  },
  {
    name: "subscribers remove",
    usage: "EMAIL",
    summary: "remove one address from the newsletter",
    help: `Removes the subscriber with this address, in any letter case, with the
record of each confirmation and edition mailed to it, which an
unsubscription keeps. Their old unsubscribe link keeps answering
"unsubscribed". A suppression stays (it keeps no address): a complained or
refused address gets no mail until "suppressions lift EMAIL".
Exit code 3 when there was neither a subscriber nor a record.`,
  },
]);
