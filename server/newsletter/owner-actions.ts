import type { SubscribersRepository } from "../engagement/subscribers-repository.ts";
import { newToken } from "../engagement/subscribers-repository.ts";
import { toCsv } from "../lib/csv.ts";
import type { OwnerActor } from "../lib/owner-actor.ts";
import type { Mailer } from "../outbox/mailer.ts";
import type { Edition } from "./editions.ts";
import type { EditionsRepository } from "./editions-repository.ts";
import { editionMail } from "./messages.ts";

/*
 * The owner's actions on the newsletter, the same from the console and from
 * the command line (docs/architecture.md, "Owner actions"): each acts and
 * writes one line of the audit trail under its actor. The trail never holds
 * an address: an erasure would leave a copy there.
 */

/** Removing subscribers, exporting them, and asking imported ones to confirm. */
export function subscriberActions(subscribers: SubscribersRepository, siteUrl: string) {
  return {
    /** Removes the subscriber with this address, in any letter case; false when none has it. */
    async remove(by: OwnerActor, email: string): Promise<boolean> {
      if (!(await subscribers.remove(email))) return false;
      await by.audit("subscriber remove", "1 address");
      return true;
    },

    /**
     * The confirmed subscribers as CSV, oldest first, each with its
     * unsubscribe link; a cell a spreadsheet would run as a formula starts
     * with a ' (server/lib/csv.ts).
     */
    async exportCsv(by: OwnerActor): Promise<{ csv: string; count: number }> {
      const list = await subscribers.list();
      const csv = toCsv([
        ["email", "subscribed_at", "unsubscribe_url"],
        ...list.map((s) => [
          s.email,
          s.subscribedAt,
          `${siteUrl}/unsubscribe?token=${encodeURIComponent(s.unsubscribeToken)}`,
        ]),
      ]);
      await by.audit("subscribers export", `${list.length} addresses`);
      return { csv, count: list.length };
    },

    /** Queues a request to confirm for each imported subscriber still pending; how many. */
    async reconfirm(by: OwnerActor): Promise<number> {
      const queued = await subscribers.reconfirmImported();
      await by.audit("newsletter reconfirm", `${queued} queued`);
      return queued;
    },
  };
}

/** Sending an edition: one test copy, or to every confirmed subscriber. */
export function editionActions(
  editions: EditionsRepository,
  siteUrl: string,
  /** Wakes this instance's outbox worker as the first page of copies is queued. */
  mailQueued?: () => void,
) {
  return {
    /**
     * Sends one copy, "[Test]" before its subject, to `to` at once; its
     * unsubscribe links lead nowhere. The trail names the edition, not the
     * address. A copy the mail server did not take is `notSent`, and no line.
     */
    async test(
      by: OwnerActor,
      edition: Edition,
      to: string,
      mailer: Mailer,
    ): Promise<"sent" | { notSent: unknown }> {
      const mail = editionMail(edition, { to, token: newToken() }, siteUrl);
      try {
        await mailer.send({ ...mail, subject: `[Test] ${mail.subject}` });
      } catch (error) {
        return { notSent: error };
      }
      await by.audit("newsletter test", edition.slug);
      return "sent";
    },

    /**
     * Queues the edition for every confirmed subscriber who has not had it
     * (an edition is known by its slug); a changed edition under a slug
     * already sent is a `conflict`, and nothing is queued.
     */
    async send(
      by: OwnerActor,
      edition: Edition,
    ): Promise<{ queued: number; created: boolean } | { conflict: string }> {
      let saved: { id: number; created: boolean };
      try {
        saved = await editions.saveEdition(edition);
      } catch (error) {
        if (error instanceof Error && /other content/.test(error.message)) {
          return { conflict: error.message };
        }
        throw error;
      }
      // The worker starts on the first page while the rest of the list is queued.
      const queued = await editions.queueEdition(
        saved.id,
        mailQueued ? { onPage: mailQueued } : {},
      );
      await by.audit("newsletter send", `${edition.slug} (${queued} queued)`);
      return { queued, created: saved.created };
    },
  };
}

export type SubscriberActions = ReturnType<typeof subscriberActions>;
export type EditionActions = ReturnType<typeof editionActions>;
