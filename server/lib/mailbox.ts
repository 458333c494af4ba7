import { createHmac } from "node:crypto";

/** Other names of a provider's domain: their mailboxes are the same. */
const aliases = new Map([["googlemail.com", "gmail.com"]]);

/**
 * The mailbox an address reaches: lower case, without a "+tag", and for a
 * limit (`loose`) without dots in the part before the "@" either (Gmail
 * ignores them, and so do many others). A form's hourly limits per address
 * (an enquiry's acknowledgement, a booked call) count loosely: two people
 * whose addresses differ only so share one limit, which costs them at most an
 * hour's wait for a mail; a stranger's inbox cannot be sent one each. A stop
 * that lasts (reply mails) drops dots only at Gmail, where they never count:
 * elsewhere "a.lice" may be someone else than "alice", and a stranger could
 * stop her mails by stopping their own. A "-tag" (Yahoo's disposable
 * addresses, some self-hosted servers) is kept, even loosely: at most
 * providers "mary-jane" is a mailbox of its own, and Yahoo's are named after
 * a base name that is not the account's address anyway.
 */
export function mailboxOf(email: string, { loose = true } = {}): string {
  const address = email.trim().toLowerCase();
  const at = address.lastIndexOf("@");
  const domain = address.slice(at + 1);
  const same = aliases.get(domain) ?? domain;
  const local = address.slice(0, at).split("+")[0]!;
  return `${loose || same === "gmail.com" ? local.replaceAll(".", "") : local}@${same}`;
}

/** The domains whose addresses may reach `mailbox` (a `mailboxOf`): its own and its other names. */
export const domainsOf = (mailbox: string): string[] => {
  const domain = mailbox.slice(mailbox.lastIndexOf("@") + 1);
  return [domain, ...[...aliases].filter(([, to]) => to === domain).map(([alias]) => alias)];
};

/** The mailbox's digest a form counts its limit by (`loose`, above), under a key for `purpose` alone. */
export function mailboxDigest(
  secret: string,
  purpose: string,
  { loose = true } = {},
): (email: string) => string {
  const key = createHmac("sha256", secret).update(purpose).digest();
  return (email) =>
    createHmac("sha256", key).update(mailboxOf(email, { loose })).digest("base64url");
}

/** A keyed digest an address is kept under instead of itself. */
export type AddressKey = (email: string) => string;

/**
 * The key suppressed addresses are kept under (server/outbox/suppressions.ts),
 * from the cookie secret: their mailbox, folded as a stop of reply mails folds it.
 */
export const suppressionKey = (secret: string): AddressKey =>
  mailboxDigest(secret, "suppressed addresses", { loose: false });

/**
 * An address as a row that holds it is written (a subscriber's, one left for
 * reply mails): with the digest a suppression of its mailbox is kept under,
 * which the owner's list of suppressions finds it by. Every write of such an
 * address goes through here.
 */
export const heldAddress = (key: AddressKey, email: string) => ({ email, email_hash: key(email) });
