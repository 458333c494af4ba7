import type { Transaction } from "kysely";
import { plural } from "../../contract/plural.ts";
import { inParts, type OwnerActor, queuedSaid } from "../db/owner-actor.ts";
import type { Database } from "../db/schema.ts";
import type { SubscribersRepository } from "../engagement/subscribers-repository.ts";
import { toCsv } from "../lib/csv.ts";
import { newToken } from "../lib/tokens.ts";
import { tokenLink } from "../outbox/mail-layout.ts";
import type { Mailer } from "../outbox/mailer.ts";
import type { Suppressions } from "../outbox/suppressions.ts";
import type { Edition } from "./editions.ts";
import type { EditionsRepository } from "./editions-repository.ts";
import { editionMail, testCopy } from "./messages.ts";
import { type EditionSchedules, scheduleHorizonMs } from "./schedules.ts";

/*
 * The owner's actions on the newsletter, the same from the console and from
 * the command line (docs/architecture.md, "Owner actions"): each acts and
 * writes one line of the audit trail under its actor. The trail never holds
 * an address: an erasure would leave a copy there.
 */

export function subscriberActions(subscribers: SubscribersRepository, siteUrl: string) {
  return {
    /** Removes the subscriber with this address, in any letter case; false when none has it. */
    remove: (by: OwnerActor, email: string): Promise<boolean> =>
      by.act(
        (trx) => subscribers.remove(email, trx),
        (done) => done && ["subscriber remove", "1 address"],
      ),

    /** The confirmed subscribers as CSV (server/lib/csv.ts), each with its unsubscribe link. */
    async exportCsv(by: OwnerActor): Promise<{ csv: string; count: number }> {
      const list = await subscribers.list();
      const csv = toCsv([
        ["email", "subscribed_at", "unsubscribe_url"],
        ...list.map((s) => [
          s.email,
          s.subscribedAt,
          tokenLink(siteUrl, "/unsubscribe", s.unsubscribeToken),
        ]),
      ]);
      await by.audit("subscribers export", plural(list.length, "address", "addresses"));
      return { csv, count: list.length };
    },

    /**
     * Queues a request to confirm for each imported subscriber still pending
     * and not asked in the 24 hours before `now` (when the command line
     * counted them); how many, and how many a run before this one queued
     * since the trail's last reconfirmation (the form's requests are not counted). A long list is queued in
     * batches, a transaction each, so the line follows the last: a run whose
     * line failed is counted by the next, which writes one even when it
     * queues nothing, and none when there is nothing to count.
     */
    reconfirm: inParts(
      async (
        by: OwnerActor,
        now: Date = new Date(),
      ): Promise<{ queued: number; before: number }> => {
        const before = await subscribers.reconfirmedAfter(
          await by.lastWrote(["newsletter reconfirm"]),
        );
        const queued = await subscribers.reconfirmImported(now);
        if (queued > 0 || before > 0)
          await by.audit("newsletter reconfirm", queuedSaid(queued, before));
        return { queued, before };
      },
    ),
  };
}

/** The trail's lines of an edition's sending, each naming it first: "slug (5 queued)". */
const sendLines = ["newsletter send", "newsletter scheduled send"];

/** `mailQueued` wakes this instance's outbox worker as the first copies of an edition are queued. */
export function editionActions(
  editions: EditionsRepository,
  schedules: EditionSchedules,
  siteUrl: string,
  { mailQueued }: { mailQueued?: () => void } = {},
) {
  return {
    /**
     * One copy to `to` at once, marked as a test (server/newsletter/messages.ts,
     * testCopy), its unsubscribe links leading nowhere. Nothing is stored: the
     * edition's figures do not count it and it can still be sent to everyone.
     * The trail names the edition, not the address.
     */
    async test(by: OwnerActor, edition: Edition, to: string, mailer: Mailer) {
      try {
        await mailer.send(testCopy(editionMail(edition, { to, token: newToken() }, siteUrl)));
      } catch (error) {
        return { notSent: error };
      }
      await by.audit("newsletter test", edition.slug);
      return "sent" as const;
    },

    /**
     * Queues the edition for every confirmed subscriber who has not had it;
     * a changed edition under a name sent before is a conflict. The list is
     * queued page by page, the worker sending from the first, so the line
     * follows the last page; it also counts the copies queued `before`, since
     * the trail's last line of the edition's sending, by a run whose line failed.
     */
    send: inParts(
      async (
        by: OwnerActor,
        edition: Edition,
      ): Promise<{ queued: number; before: number; created: boolean } | { conflict: string }> => {
        const stored = await editions.saveEdition(edition);
        if (typeof stored === "string") return { conflict: stored };
        const before = await editions.queuedAfter(
          stored.id,
          await by.lastWrote(sendLines, `${edition.slug} (`),
        );
        // The worker starts on the first page while the rest of the list is queued.
        const queued = await editions.queueEdition(
          stored.id,
          mailQueued ? { onPage: mailQueued } : {},
        );
        await by.audit("newsletter send", `${edition.slug} (${queuedSaid(queued, before)})`);
        return { queued, before, created: stored.created };
      },
    ),

    /**
     * Stores the edition now and sends it at `at` to every confirmed
     * subscriber then (docs/mail.md, "Sending later"); a new time replaces
     * the old until it starts.
     */
    async schedule(
      by: OwnerActor,
      edition: Edition,
      at: Date,
    ): Promise<{ sendAt: string } | { invalid: string } | { conflict: string }> {
      const now = Date.now();
      if (Number.isNaN(at.getTime())) return { invalid: "The time is not a time." };
      if (at.getTime() <= now) return { invalid: "The time has passed: choose a later one." };
      if (at.getTime() > now + scheduleHorizonMs) {
        return { invalid: "The time is more than a year away." };
      }
      const sendAt = at.toISOString();
      return by.act(
        async (trx) => {
          const stored = await editions.saveEdition(edition, trx);
          if (typeof stored === "string") return { conflict: stored };
          if ((await schedules.schedule(stored.id, at, trx)) === "started") {
            return { conflict: `The edition "${edition.slug}" is being sent now.` };
          }
          return { sendAt };
        },
        (done) => "sendAt" in done && ["newsletter schedule", `${edition.slug} at ${sendAt}`],
      );
    },

    /** Cancels the schedule of the edition `slug` if it has not started. */
    cancel: (by: OwnerActor, slug: string): Promise<"cancelled" | "started" | "not_found"> =>
      by.act(
        (trx) => schedules.cancel(slug, trx),
        (done) => done === "cancelled" && ["newsletter cancel", slug],
      ),
  };
}

/**
 * The suppression list: the owner lifts one address (docs/mail.md, "Bounces and
 * complaints"), and a reader's stop of all reply mails too (`resumeReplies`).
 */
export function suppressionActions(
  suppressions: Suppressions,
  resumeReplies: (email: string, within: Transaction<Database>) => Promise<boolean>,
) {
  return {
    /**
     * Lets mail go to an address again, named by itself or by its row's `id`
     * (the address, which the list may no longer know, also has its stop of
     * reply mails lifted); false when it was neither suppressed nor stopped.
     */
    lift: (by: OwnerActor, which: { email: string } | { id: string }): Promise<boolean> =>
      by.act(
        async (trx) => {
          const lifted = await suppressions.lift(which, trx);
          return ("email" in which && (await resumeReplies(which.email, trx))) || lifted;
        },
        (done) => done && ["suppression lift", "1 address"],
      ),
  };
}

/** What the owner is told when the mail server did not take a test copy: its words, and what to check. */
export const testCopyRefused = (reason: string) =>
  `The mail server did not take the test copy (${reason.replace(/\.$/, "")}): check the address, and that SMTP_URL names a mail server that is running, then try again.`;
