import type { Enquiry, EnquiryStatusName } from "../../contract/enquiries.ts";
import { serviceTitles } from "../../contract/enquiry-choices.ts";
import { plural } from "../../contract/plural.ts";
import type { OwnerActor } from "../db/owner-actor.ts";
import { toCsv } from "../lib/csv.ts";
import type { EnquiriesRepository, StoredEnquiry } from "./repository.ts";

/** The export's columns: a heading, and the cell an enquiry writes under it. */
const columns: [string, (enquiry: Enquiry & { zone: string }) => string][] = [
  ["id", (enquiry) => String(enquiry.id)],
  ["created_at", (enquiry) => enquiry.createdAt],
  ["status", (enquiry) => enquiry.status],
  ["kept", (enquiry) => (enquiry.kept ? "yes" : "no")],
  ["service", (enquiry) => enquiry.serviceTitle],
  ["name", (enquiry) => enquiry.name],
  ["email", (enquiry) => enquiry.email],
  ["organisation", (enquiry) => enquiry.organisation ?? ""],
  ["timeline", (enquiry) => enquiry.timeline ?? ""],
  ["message", (enquiry) => enquiry.message],
  ["answers", (enquiry) => String(enquiry.answers.length)],
  // The zone the sender's mails tell their times in (their browser's, else UTC).
  ["sender_zone", (enquiry) => enquiry.zone],
];

/** How the owner reads an enquiry: with its service's title, without its mail thread's id. */
export function enquiryReader(services: { id: string; title: string }[]) {
  const serviceTitle = serviceTitles(services);
  return {
    serviceTitle,
    toEnquiry: ({ threadId: _thread, zone: _zone, ...rest }: StoredEnquiry): Enquiry => ({
      ...rest,
      serviceTitle: serviceTitle(rest.service),
    }),
  };
}

/**
 * The owner's actions on enquiries, the same from the console and from the
 * command line (docs/architecture.md, "Owner actions"): each acts and writes
 * one line of the audit trail under its actor, naming the enquiry by its
 * number, never by what it holds. An enquiry that is not there is false, and no line.
 */
export function enquiryActions({
  repository,
  toEnquiry,
  mailQueued = () => {},
}: {
  repository: EnquiriesRepository;
  toEnquiry(stored: StoredEnquiry): Enquiry;
  /** Wakes this instance's outbox worker once an answer is queued. */
  mailQueued?: () => void;
}) {
  return {
    /**
     * Marks an enquiry new, answered or closed, keeps it past the retention
     * period or lets it go again, or both: one transaction, a line for each.
     */
    update: (
      by: OwnerActor,
      id: number,
      change: { status?: EnquiryStatusName | undefined; kept?: boolean | undefined },
    ): Promise<boolean> => {
      const { status, kept } = change;
      const lines = [
        ...(status ? [`enquiry ${status}`] : []),
        ...(kept === undefined ? [] : [kept ? "enquiry keep" : "enquiry release"]),
      ];
      const last = lines.pop();
      return by.act(
        async (trx) => {
          const done = await repository.update(id, change, trx);
          for (const action of done ? lines : []) await by.audit(action, `enquiry ${id}`, trx);
          return done;
        },
        (done) => done && last !== undefined && [last, `enquiry ${id}`],
      );
    },

    /** Answers by mail, threaded under the acknowledgement, its mail queued with the line. */
    async answer(by: OwnerActor, id: number, body: string): Promise<boolean> {
      const answered = await by.act(
        (trx) => repository.answer(id, body, trx),
        (answer) => answer !== undefined && ["enquiry answer", `enquiry ${id}`],
      );
      if (answered) mailQueued();
      return answered !== undefined;
    },

    /** Deletes an enquiry with its answers and every mail about it. */
    remove: (by: OwnerActor, id: number): Promise<boolean> =>
      by.act(
        (trx) => repository.delete(id, trx),
        (done) => done && ["enquiry delete", `enquiry ${id}`],
      ),

    /**
     * Every enquiry as CSV, newest first, and how many: everything a sender
     * typed is anyone's text, so a cell that a spreadsheet would run as a
     * formula gets a leading ' (server/lib/csv.ts).
     */
    async exportCsv(by: OwnerActor): Promise<{ csv: string; count: number }> {
      const all = (await repository.list({ limit: 100_000 })).map((stored) => ({
        ...toEnquiry(stored),
        zone: stored.zone,
      }));
      await by.audit("enquiries export", plural(all.length, "enquiry", "enquiries"));
      const rows = all.map((enquiry) => columns.map(([, cell]) => cell(enquiry)));
      return { csv: toCsv([columns.map(([heading]) => heading), ...rows]), count: all.length };
    },
  };
}
