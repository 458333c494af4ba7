import { newToken, type SubscribersRepository } from "../engagement/subscribers-repository.ts";
import { toCsv } from "../lib/csv.ts";
import type { OwnerActor } from "../lib/owner-actor.ts";
import type { Mailer } from "../outbox/mailer.ts";
import type { Suppressions } from "../outbox/suppressions.ts";
import type { Edition } from "./editions.ts";
import type { EditionsRepository } from "./editions-repository.ts";
import { editionMail } from "./messages.ts";

/*
 * The owner's actions on the newsletter, the same from the console and from
 * the command line (docs/architecture.md, "Owner actions"): each acts and
 * writes one line of the audit trail under its actor. The trail never holds
 * an address: an erasure would leave a copy there.
 */

export function subscriberActions(subscribers: SubscribersRepository, siteUrl: string) {
  return {
    /** Removes the subscriber with this address, in any letter case; false when none has it. */
    async remove(by: OwnerActor, email: string): Promise<boolean> {
      if (!(await subscribers.remove(email))) return false;
      await by.audit("subscriber remove", "1 address");
      return true;
    },

    /** The confirmed subscribers as CSV (server/lib/csv.ts), each with its unsubscribe link. */
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

/** `mailQueued` wakes this instance's outbox worker as the first copies of an edition are queued. */
export function editionActions(
  editions: EditionsRepository,
  siteUrl: string,
  mailQueued?: () => void,
) {
  return {
    /**
     * One copy to `to` at once, "[Test]" before its subject, its unsubscribe
     * links leading nowhere; the trail names the edition, not the address.
     */
    async test(by: OwnerActor, edition: Edition, to: string, mailer: Mailer) {
      const mail = editionMail(edition, { to, token: newToken() }, siteUrl);
      try {
        await mailer.send({ ...mail, subject: `[Test] ${mail.subject}` });
      } catch (error) {
        return { notSent: error };
      }
      await by.audit("newsletter test", edition.slug);
      return "sent" as const;
    },

    /**
     * Queues the edition for every confirmed subscriber who has not had it;
     * a changed edition under a name sent before is a conflict.
     */
    async send(
      by: OwnerActor,
      edition: Edition,
    ): Promise<{ queued: number; created: boolean } | { conflict: string }> {
      let saved: { id: number; created: boolean };
      try {
        saved = await editions.saveEdition(edition);
      } catch (error) {
        if (!(error instanceof Error && /other content/.test(error.message))) throw error;
        return { conflict: error.message };
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

/** The suppression list: the owner lifts one address (docs/mail.md, "Bounces and complaints"). */
export function suppressionActions(suppressions: Suppressions) {
  return {
    /** Lets mail go to `email` again; false when it was not suppressed. */
    async lift(by: OwnerActor, email: string): Promise<boolean> {
      if (!(await suppressions.lift(email))) return false;
      await by.audit("suppression lift", "1 address");
      return true;
    },
  };
}
