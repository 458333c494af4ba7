import type { OutboxKind } from "../db/schema.ts";

/*
 * What the enquiries' repository and their deletion share: how an enquiry's
 * outbox rows name it, and the acknowledgement's interval.
 */

/** An acknowledgement to one address at most this often, whatever the form is fed. */
export const acknowledgementIntervalMs = 60 * 60 * 1000;

export const enquiryMailKinds = [
  "enquiry_notice",
  "enquiry_ack",
  "enquiry_answer",
] as const satisfies readonly OutboxKind[];

/**
 * The outbox payload of an enquiry's mails; `likelyJunk` when the spam
 * classifier took the enquiry for advertising (the owner's mail says so).
 */
export type EnquiryMailPayload = { enquiryId: number; answerId?: number; likelyJunk?: true };

export function parseEnquiryPayload(raw: string | null): EnquiryMailPayload | null {
  if (raw === null) return null;
  try {
    const value = JSON.parse(raw) as Partial<EnquiryMailPayload>;
    if (typeof value.enquiryId !== "number") return null;
    return {
      enquiryId: value.enquiryId,
      ...(typeof value.answerId === "number" ? { answerId: value.answerId } : {}),
      ...(value.likelyJunk === true ? { likelyJunk: true as const } : {}),
    };
  } catch {
    return null;
  }
}
