import { plural } from "../../contract/plural.ts";
import type { AddressKey } from "../lib/mailbox.ts";
import { keptAddress } from "../outbox/suppressions.ts";
import type { ExportRows } from "./tables.ts";

/*
 * A version-1 export (written before suppressions kept no address,
 * docs/decisions/059-suppressions-without-addresses.md) holds the suppressed
 * addresses and soft bounces with their address: read with their version-1
 * columns, they are kept here as the outbox keeps a new one, under the
 * importing site's key, as migration 048 converts a database's rows.
 */

/** Whether `tables` hold rows read with an address (a version-1 file's). */
export const holdsAddresses = (tables: readonly ExportRows[]) =>
  tables.some(({ table, rows }) => table.version1 && rows.some((row) => "email" in row));

/**
 * Each address of a version-1 file's suppressions and soft bounces as its
 * digest under `key`, in place; two spellings of one mailbox become one
 * suppression, a complaint's if one was. How many rows were so folded.
 */
export function digestAddresses(tables: ExportRows[], key: AddressKey): number {
  let folded = 0;
  for (const rows of tables) {
    if (rows.table.name === "soft_bounces") {
      rows.rows = rows.rows.map(({ email, ...row }) => ({
        ...row,
        email_hash: key(String(email)),
      }));
    }
    if (rows.table.name !== "suppressions") continue;
    const kept = new Map<string, { row: ExportRows["rows"][number]; at: number }>();
    const complaintsFirst = rows.rows
      .map((row, index) => ({ row, at: rows.at[index] ?? index }))
      .sort((a, b) => Number(a.row.reason !== "complaint") - Number(b.row.reason !== "complaint"));
    for (const { row, at } of complaintsFirst) {
      const { email, ...rest } = row;
      const address = keptAddress(
        key,
        String(email),
        rest.detail === null ? null : String(rest.detail),
      );
      if (!kept.has(address.email_hash))
        kept.set(address.email_hash, { row: { ...rest, ...address }, at });
    }
    folded += rows.rows.length - kept.size;
    const ordered = [...kept.values()].sort((a, b) => a.at - b.at);
    rows.rows = ordered.map(({ row }) => row);
    rows.at = ordered.map(({ at }) => at);
  }
  return folded;
}

/** What an import says of the suppressions `digestAddresses` folded into others. */
export const foldedNotice = (folded: number) =>
  `${plural(folded, "suppressed address", "suppressed addresses")} of the file ${folded === 1 ? "was another spelling" : "were other spellings"} of a mailbox suppressed in it already (a letter case, a +tag, a Unicode domain…): each mailbox is kept once, as a complaint where one was.`;
