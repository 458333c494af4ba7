import { createHmac } from "node:crypto";

/**
 * The mailbox an address reaches: lower case, without a "+tag", and for a
 * limit (`loose`) without dots in the part before the "@" either (Gmail
 * ignores them, and so do many others). A form's hourly limits per address
 * (an enquiry's acknowledgement, a booked call) count loosely: two people
 * whose addresses differ only so share one limit, which costs them at most an
 * hour's wait for a mail; a stranger's inbox cannot be sent one each. A stop
 * that lasts (reply mails) drops dots only at Gmail, where they never count:
 * elsewhere "a.lice" may be someone else than "alice", and a stranger could
 * stop her mails by stopping their own.
 */
function mailboxOf(email: string, loose: boolean): string {
  const address = email.trim().toLowerCase();
  const at = address.lastIndexOf("@");
  const domain = address.slice(at + 1).replace(/^googlemail\.com$/, "gmail.com");
  const local = address.slice(0, at).split("+")[0]!;
  return `${loose || domain === "gmail.com" ? local.replaceAll(".", "") : local}@${domain}`;
}

/** The mailbox's digest a form counts its limit by (`loose`, above), under a key for `purpose` alone. */
export function mailboxDigest(
  secret: string,
  purpose: string,
  { loose = true } = {},
): (email: string) => string {
  const key = createHmac("sha256", secret).update(purpose).digest();
  return (email) => createHmac("sha256", key).update(mailboxOf(email, loose)).digest("base64url");
}
