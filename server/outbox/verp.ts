import { addressSignature, keyFor, sameSecret } from "../lib/tokens.ts";

/**
 * VERP return paths (docs/mail.md, "Bounces and complaints"): each mail is
 * sent from its own bounce address, BOUNCE_ADDRESS with the outbox row's id
 * and a signature after a `+`, as `bounces+1234-5f0c…@example.com`. A
 * delivery report sent back to it says which mail failed, and so which
 * address and edition, without trusting anything else the report claims. The
 * signature (an HMAC made with a key of the site's own) is of the row's id and
 * the address it was sent to: a forged report cannot name a row, and a row
 * that holds another address under the same id (after a restored backup, or a
 * move to a new database with the same secret, whose ids start again) is not
 * named by an old mail's return path, so nobody else is suppressed.
 */

const signature = (key: string, rowId: number, email: string) =>
  addressSignature(key, `verp ${rowId} ${email.trim().toLowerCase()}`);

export function verpAddress(bounceAddress: string, rowId: number, email: string, key: string) {
  const at = bounceAddress.lastIndexOf("@");
  return `${bounceAddress.slice(0, at)}+${rowId}-${signature(key, rowId, email)}${bounceAddress.slice(at)}`;
}

/** The outbox row a bounce address names, with its signature, or null when it is not one of ours in form. */
export function verpRow(
  address: string,
  bounceAddress: string,
): { rowId: number; signature: string } | null {
  const at = bounceAddress.lastIndexOf("@");
  const local = bounceAddress.slice(0, at).toLowerCase();
  const domain = bounceAddress.slice(at + 1).toLowerCase();
  const match = /^<?([^@\s<>]+)@([^@\s<>]+?)>?$/.exec(address.trim());
  if (!match || match[2]?.toLowerCase() !== domain) return null;
  const parts = /^(.+)\+(\d{1,15})-([0-9a-f]+)$/i.exec(match[1] ?? "");
  if (!parts || parts[1]?.toLowerCase() !== local) return null;
  return { rowId: Number(parts[2]), signature: (parts[3] ?? "").toLowerCase() };
}

/** Whether a return path's signature is ours for the mail of row `rowId` to `email`. */
export const verpSigned = (key: string, rowId: number, email: string, given: string) =>
  sameSecret(given, signature(key, rowId, email));

/** The key return paths are signed with, made from the site's secret: the same on every instance. */
export const verpKeyOf = (cookieSecret: string) => keyFor(cookieSecret, "verp return paths");
