/**
 * The mailbox an address reaches, as far as a form's hourly limits per
 * address are concerned (an enquiry's acknowledgement, a booked call): lower case, without a "+tag" and without dots in the
 * part before the "@" (Gmail ignores them, and so do many others). Two people
 * whose addresses differ only so share one limit, which costs them at most an
 * hour's wait for a mail; a stranger's inbox cannot be sent one each.
 */
export function mailboxOf(email: string): string {
  const address = email.trim().toLowerCase();
  const at = address.lastIndexOf("@");
  const local = address.slice(0, at).split("+")[0]!.replaceAll(".", "");
  const domain = address.slice(at + 1).replace(/^googlemail\.com$/, "gmail.com");
  return `${local}@${domain}`;
}
