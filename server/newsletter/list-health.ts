import { sql } from "kysely";
import type { Store } from "../db/store.ts";
import type { SubscribersRepository } from "../engagement/subscribers-repository.ts";
import { dayMs, toIso } from "../lib/time.ts";
import { markReported } from "../outbox/marks.ts";
import type { OnUndeliverable } from "../outbox/recipient-health.ts";
import type { Suppressions } from "../outbox/suppressions.ts";
import { verpRow, verpSigned } from "../outbox/verp.ts";
import { type ReportKind, readReport } from "./reports.ts";

/**
 * Acting on bounces and complaints, whichever way they come in
 * (docs/mail.md, "Bounces and complaints"): a hard bounce suppresses the
 * address; a soft one counts towards a suppression; a complaint suppresses
 * it and unsubscribes it. The mail it is about is marked, for its edition's
 * figures: whether it bounced or drew a complaint, nothing about who.
 */
export function createListHealth({
  store,
  suppressions,
  subscribers,
  bounceAddress,
  verpKey,
  undeliverable,
}: {
  store: Store;
  suppressions: Suppressions;
  subscribers: SubscribersRepository;
  bounceAddress: string | undefined;
  verpKey: string;
  /** What a mail's own module does when a hard bounce is tied to it (a booking's invitation). */
  undeliverable?: OnUndeliverable;
}) {
  const { db } = store;

  async function act(
    email: string,
    kind: ReportKind,
    {
      source,
      ref,
      detail,
      rowId,
    }: { source: string; ref: string; detail: string | null; rowId?: number },
  ) {
    if (kind === "hard") await suppressions.suppress(email, "hard_bounce", { source, detail });
    else if (kind === "soft") await suppressions.softBounce(email, { ref, source, detail });
    else {
      // Unsubscribed, as its link would: the mails' record keeps what they drew.
      await subscribers.unsubscribeAddress(email);
      await suppressions.suppress(email, "complaint", { source, detail });
    }
    if (rowId === undefined) return;
    await markReported(store, rowId, kind === "complaint" ? "complaint" : "bounce");
  }

  /**
   * The marks that show a report of `kind` was taken already: its own, or a
   * complaint's, which outranks a bounce's.
   */
  const marksOf = (kind: ReportKind): ("bounce" | "complaint")[] =>
    kind === "complaint" ? ["complaint"] : ["bounce", "complaint"];

  /** Whether row `rowId`'s mark for `kind` waits for its sender (`markReported`). */
  async function markWaiting(rowId: number, kind: ReportKind): Promise<boolean> {
    if (store.kind !== "postgres") return false;
    const waiting = await db
      .selectFrom("outbox_marks")
      .select("outbox_id")
      .where("outbox_id", "=", rowId)
      .where("feedback", "in", marksOf(kind))
      .executeTakeFirst();
    return waiting !== undefined;
  }

  return {
    /**
     * One mail from the bounce mailbox. It acts only when the report is
     * addressed to a return path whose signature is ours, on the address
     * that row was sent to; anything else changes nothing. A mail reports
     * once: another report of its bounce or complaint (a copy, or one sent
     * again after the owner lifted the suppression) changes nothing more.
     */
    async handleMailboxReport(source: Buffer | string): Promise<"acted" | "ignored"> {
      if (!bounceAddress) return "ignored";
      const report = await readReport(source);
      if (!report?.kind) return "ignored";
      // A report may name any number of addresses: the first few that read as ours are looked up.
      const named = report.returnPaths
        .map((address) => verpRow(address, bounceAddress))
        .filter((path) => path !== null)
        .slice(0, 10);
      if (named.length === 0) return "ignored";
      const rows = await db
        .selectFrom("outbox")
        .select(["id", "email", "feedback", "kind", "payload"])
        .where("id", "in", [...new Set(named.map((path) => path.rowId))])
        .execute();
      const sentTo = new Map(rows.map((row) => [Number(row.id), row]));
      // Signed for the row and the address it holds: a row that holds another under a
      // reused id (a restored backup, a move) is not the one the report is about.
      const path = named.find(({ rowId, signature }) => {
        const row = sentTo.get(rowId);
        return row?.email ? verpSigned(verpKey, rowId, row.email, signature) : false;
      });
      const row = path && sentTo.get(path.rowId);
      if (!path || !row?.email) return "ignored";
      const { rowId } = path;
      const marked = row.feedback !== null && marksOf(report.kind).includes(row.feedback);
      if (marked || (await markWaiting(rowId, report.kind))) return "ignored";
      await act(row.email, report.kind, {
        source: "mailbox",
        ref: `outbox ${rowId}`,
        detail: report.detail,
        rowId,
      });
      if (report.kind === "hard") await undeliverable?.(row);
      return "acted";
    },

    /**
     * A provider's verified report about `email` (SES, Postmark). It acts only
     * on an address the site has mailed: a row to it sent, or claimed for
     * sending (`sending` on SQLite, locked on PostgreSQL, or queued again after
     * an attempt), as a report may come before the claim's outcome is written.
     * A provider shared with other senders, or a mistaken report, stops no mail
     * to a reader the site never mailed. Its mail is taken to be the last one
     * to the address, and marked when it was sent in the last 7 days or is
     * still going out; the report waits for no send (`markReported`).
     */
    async handleProviderReport(
      email: string,
      kind: ReportKind,
      { source, ref, detail }: { source: string; ref: string; detail: string | null },
    ): Promise<"acted" | "ignored"> {
      const address = email.trim().toLowerCase();
      const toAddress = db.selectFrom("outbox").where(sql<string>`lower(email)`, "=", address);
      // PostgreSQL's claim is a row lock: the address's queued rows not free to lock are claimed.
      const free = toAddress.select("id").forKeyShare().skipLocked();
      const row = await toAddress
        .select(["id", "status", "sent_at", "kind", "email", "payload"])
        .where((eb) =>
          eb.or([
            eb("status", "in", ["sent", "sending"]),
            eb.and([eb("status", "=", "queued"), eb("attempts", ">", 0)]),
            ...(store.kind === "postgres"
              ? [eb.and([eb("status", "=", "queued"), eb("id", "not in", free)])]
              : []),
          ]),
        )
        .orderBy("id", "desc")
        .limit(1)
        .executeTakeFirst();
      if (!row) return "ignored";
      const marked =
        row.status !== "sent" ||
        (row.sent_at !== null && Date.parse(toIso(row.sent_at)) >= Date.now() - 7 * dayMs);
      await act(email, kind, {
        source,
        ref,
        detail,
        ...(marked ? { rowId: Number(row.id) } : {}),
      });
      // Its mail, when it is the one the report is taken to be about.
      if (kind === "hard" && marked) await undeliverable?.(row);
      return "acted";
    },
  };
}

export type ListHealth = ReturnType<typeof createListHealth>;
