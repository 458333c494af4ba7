import { createHmac } from "node:crypto";

/**
 * The mailbox an address reaches, as far as a form's hourly limits per
 * address are concerned (an enquiry's acknowledgement, a booked call): lower case, without a "+tag" and without dots in the
 * part before the "@" (Gmail ignores them, and so do many others). Two people
 * whose addresses differ only so share one limit, which costs them at most an
 * hour's wait for a mail; a stranger's inbox cannot be sent one each.
 */
function mailboxOf(email: string): string {
  const address = email.trim().toLowerCase();
  const at = address.lastIndexOf("@");
  const local = address.slice(0, at).split("+")[0]!.replaceAll(".", "");
  const domain = address.slice(at + 1).replace(/^googlemail\.com$/, "gmail.com");
  return `${local}@${domain}`;
}

/** The mailbox's digest a form counts its limit by, under a key for `purpose` alone. */
export function mailboxDigest(secret: string, purpose: string): (email: string) => string {
  const key = createHmac("sha256", secret).update(purpose).digest();
  return (email) => createHmac("sha256", key).update(mailboxOf(email)).digest("base64url");
}
