import type { Enquiry, ValidEnquiry } from "../../contract/enquiries.ts";
import type { Config } from "../config.ts";
import type { Db } from "../db/store.ts";
import { type FormRefusal, type FormServiceDeps, ownerForm } from "../moderation/enquiry-rules.ts";
import type { SpamFilter } from "../moderation/spam/filter.ts";
import type { ComposeMail } from "../outbox/outbox-worker.ts";
import { acknowledgementMail, answerMail, consoleUrl, ownerNoticeMail } from "./mails.ts";
import { parseEnquiryPayload } from "./outbox-rows.ts";
import { enquiryReader } from "./owner-actions.ts";
import {
  createEnquiriesRepository,
  type EnquiriesRepository,
  type StoredEnquiry,
} from "./repository.ts";

/**
 * Enquiries (docs/product.md, "Enquiries"): the checks a new one passes,
 * its storage with the mails and webhook call that follow, the owner's
 * answers, and retention. The spam defences are the comment form's, through
 * their own functions: bans, the honeypot, the form's signed time, the
 * blocklist, and limits per address and per email address. Links and contact
 * details are allowed, since only the owner reads an enquiry.
 */

/** The body of a webhook call about an enquiry (docs/mail.md, "Notifications of new comments"). */
type EnquiryWebhookBody = {
  type: "enquiry.created";
  enquiryId: number;
  occurredAt: string;
  enquiry: Omit<Enquiry, "status" | "kept" | "updatedAt" | "answers"> & { url: string };
};

type SubmitOutcome =
  | { outcome: "received"; id: number | null; acknowledged: boolean }
  | { outcome: "refused"; refusal: FormRefusal };
const refuse = (refusal: FormRefusal) => ({ outcome: "refused", refusal }) as const;

/** The hourly limit, from the connection or for the address, or from the connection's network. */
const tooMany = (full: "connection" | "network") =>
  ({
    status: 429,
    code: "rate_limited",
    message: `Too many enquiries came from ${full === "network" ? "your network" : "your connection or this address"} in the last hour; please try again in an hour, or write to the contact address.`,
    retryAfterSeconds: 3600,
  }) as const;

export function createEnquiries(
  deps: FormServiceDeps & {
    config: Pick<
      Config,
      "WEBHOOK_URL" | "WEBHOOK_SECRET" | "ENQUIRIES_PER_HOUR" | "ENQUIRY_RETENTION_DAYS"
    >;
    /** The comment form's classifier; without it, enquiries meet the rules alone. */
    spam?: Pick<SpamFilter, "isJunk">;
    /** The owner's zone (the Bookings hours'), for the owner's copy; else UTC. */
    ownerZone?: () => Promise<string>;
  },
) {
  const { store, config, services, formTokens, spam, ownerZone, clock = () => new Date() } = deps;
  const repository: EnquiriesRepository = createEnquiriesRepository(store, clock);
  const { serviceTitle, toEnquiry } = enquiryReader(services);
  const form = ownerForm("enquiries", "enquiry sender address", deps);
  const { ownerMail, host: messageIdHost } = form;
  const webhook = Boolean(config.WEBHOOK_URL && config.WEBHOOK_SECRET);
  const context = (enquiry: StoredEnquiry) => ({
    siteUrl: config.siteUrl,
    serviceTitle: serviceTitle(enquiry.service),
    ownerAddress: ownerMail,
  });

  const composers: Record<"enquiry_notice" | "enquiry_ack" | "enquiry_answer", ComposeMail> = {
    async enquiry_notice(row, db) {
      const payload = parseEnquiryPayload(row.payload);
      if (!payload || !row.email) return { outcome: "failed", reason: "a malformed notification" };
      const enquiry = await repository.get(payload.enquiryId, db);
      if (!enquiry) return { outcome: "cancelled", reason: "the enquiry was deleted" };
      const zoned = { ...context(enquiry), ownerZone: await ownerZone?.() };
      return ownerNoticeMail(row.email, enquiry, zoned, payload.likelyJunk === true);
    },
    async enquiry_ack(row, db) {
      const payload = parseEnquiryPayload(row.payload);
      if (!payload || !row.token)
        return { outcome: "failed", reason: "a malformed acknowledgement" };
      const enquiry = await repository.get(payload.enquiryId, db);
      if (!enquiry) return { outcome: "cancelled", reason: "the enquiry was deleted" };
      return acknowledgementMail(enquiry, row.token, context(enquiry));
    },
    async enquiry_answer(row, db) {
      const payload = parseEnquiryPayload(row.payload);
      if (!payload?.answerId) return { outcome: "failed", reason: "a malformed answer" };
      const enquiry = await repository.get(payload.enquiryId, db);
      const answer = enquiry?.answers.find((each) => each.id === payload.answerId);
      if (!enquiry || !answer) return { outcome: "cancelled", reason: "the enquiry was deleted" };
      return answerMail(enquiry, answer, { ...context(enquiry), messageIdHost });
    },
  };

  return {
    repository,
    services,
    serviceTitle,
    composers,
    formTokens,
    retentionDays: config.ENQUIRY_RETENTION_DAYS,
    toEnquiry,

    /** Every defence, in order, then the enquiry is stored with its mails. */
    async submit(
      enquiry: ValidEnquiry,
      { ip, visitorId }: { ip: string; visitorId: string | null },
    ): Promise<SubmitOutcome> {
      const { ipHash, networkHash, first } = await form.admit(enquiry, { ip, visitorId });
      if (first === "honeypot") return { outcome: "received", id: null, acknowledged: false };
      if (first) return refuse(first);
      // The cheap checks first: an address over its hourly limit costs one
      // count here, and is counted again, in turn, as the enquiry is stored.
      const limit = { ipHash, networkHash, email: enquiry.email, max: config.ENQUIRIES_PER_HOUR };
      const full = await repository.limited({ ...limit, now: clock() });
      if (full) return refuse(tooMany(full));
      const text = [enquiry.message, enquiry.organisation ?? "", enquiry.timeline ?? ""].join("\n");
      const content = form.content(text, "message");
      if (content) return refuse(content);
      // Kept, never dropped or refused: the classifier learnt from comments,
      // and a terse real client ("best price please, urgent") can read like
      // an advert. The owner judges; only the acknowledgement is withheld.
      const likelyJunk = (await spam?.isJunk(text)) ?? false;
      const created = await repository.create({
        enquiry,
        ipHash,
        networkHash,
        perHour: config.ENQUIRIES_PER_HOUR,
        addressHash: form.addressHash(enquiry.email),
        messageIdHost,
        ownerEmail: ownerMail,
        likelyJunk,
        ...(webhook
          ? {
              webhookBody: (id: number, createdAt: string) =>
                JSON.stringify({
                  type: "enquiry.created",
                  enquiryId: id,
                  occurredAt: createdAt,
                  enquiry: {
                    id,
                    name: enquiry.name,
                    email: enquiry.email,
                    service: enquiry.service,
                    serviceTitle: serviceTitle(enquiry.service),
                    organisation: enquiry.organisation,
                    timeline: enquiry.timeline,
                    message: enquiry.message,
                    createdAt,
                    url: consoleUrl(config.siteUrl),
                  },
                } satisfies EnquiryWebhookBody),
            }
          : {}),
      });
      if (typeof created === "string") return refuse(tooMany(created));
      form.woken();
      return { outcome: "received", ...created };
    },

    /** The sender's deletion link (the repository's `deleteBySender`), in `trx`. */
    deleteBySender: (token: string, trx: Db) =>
      repository.deleteBySender(token, form.addressHash, trx),

    onQueued: form.onQueued,
  };
}

export type Enquiries = ReturnType<typeof createEnquiries>;
