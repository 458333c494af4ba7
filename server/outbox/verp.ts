import { addressSignature, keyFor, sameSecret } from "../lib/tokens.ts";

/**
 * VERP return paths (docs/mail.md, "Bounces and complaints"): each mail is
 * sent from its own bounce address, BOUNCE_ADDRESS with the outbox row's id
 * and a signature after a `+`, as `bounces+1234-5f0c…@example.com`. A
 * delivery report sent back to it says which mail failed, and so which
 * address and edition, without trusting anything else the report claims. The
 * signature (an HMAC made with a key of the site's own) means a forged report
 * cannot name a row, and so cannot suppress anyone.
 */

const signature = (key: string, rowId: number) => addressSignature(key, `verp ${rowId}`);

export function verpAddress(bounceAddress: string, rowId: number, key: string): string {
  const at = bounceAddress.lastIndexOf("@");
  return `${bounceAddress.slice(0, at)}+${rowId}-${signature(key, rowId)}${bounceAddress.slice(at)}`;
}

/** The outbox row a bounce address names, or null when it is not one of ours or its signature is wrong. */
export function verpRow(address: string, bounceAddress: string, key: string): number | null {
  const at = bounceAddress.lastIndexOf("@");
  const local = bounceAddress.slice(0, at).toLowerCase();
  const domain = bounceAddress.slice(at + 1).toLowerCase();
  const match = /^<?([^@\s<>]+)@([^@\s<>]+?)>?$/.exec(address.trim());
  if (!match || match[2]?.toLowerCase() !== domain) return null;
  const parts = /^(.+)\+(\d{1,15})-([0-9a-f]+)$/i.exec(match[1] ?? "");
  if (!parts || parts[1]?.toLowerCase() !== local) return null;
  const rowId = Number(parts[2]);
  return sameSecret((parts[3] ?? "").toLowerCase(), signature(key, rowId)) ? rowId : null;
}

/** The key return paths are signed with, made from the site's secret: the same on every instance. */
export const verpKeyOf = (cookieSecret: string) => keyFor(cookieSecret, "verp return paths");
