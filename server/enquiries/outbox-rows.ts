import { z } from "zod";
import type { OutboxKind } from "../db/schema.ts";
import { jsonOf } from "../lib/json.ts";

/*
 * What the enquiries' repository and their deletion share: how an enquiry's
 * outbox rows name it, and the acknowledgement's interval.
 */

/**
 * An acknowledgement to one address at most this often, whatever the form is fed: three a
 * day. Once an hour, a stranger who typed someone's address into the form each hour had the
 * site send them 24 mails a day (a booking's mailbox is held to three a day alike, 086). The
 * form's thanks say it in words: `acknowledgementsAtMost` in contract/enquiry-choices.ts.
 */
export const acknowledgementIntervalMs = 8 * 60 * 60 * 1000;

export const enquiryMailKinds = [
  "enquiry_notice",
  "enquiry_ack",
  "enquiry_answer",
] as const satisfies readonly OutboxKind[];

/**
 * The outbox payload of an enquiry's mails; `likelyJunk` when the spam
 * classifier took the enquiry for advertising (the owner's mail says so).
 */
const enquiryMailPayload = z.object({
  enquiryId: z.number(),
  answerId: z.number().optional().catch(undefined),
  likelyJunk: z.literal(true).optional().catch(undefined),
});
export type EnquiryMailPayload = z.infer<typeof enquiryMailPayload>;

export const parseEnquiryPayload = (raw: string | null) => jsonOf(raw, enquiryMailPayload);
