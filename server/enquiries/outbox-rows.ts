import { createHash } from "node:crypto";
import type { OutboxKind } from "../db/schema.ts";

/*
 * What the enquiries' repository and their deletion share: how an enquiry's
 * outbox rows name it, the acknowledgement's interval, and the digest under
 * which the deletion link's token is kept.
 */

/** An acknowledgement to one address at most this often, whatever the form is fed. */
export const acknowledgementIntervalMs = 60 * 60 * 1000;

export const enquiryMailKinds = [
  "enquiry_notice",
  "enquiry_ack",
  "enquiry_answer",
] as const satisfies readonly OutboxKind[];

/** The outbox payload of an enquiry's mails. */
export type EnquiryMailPayload = { enquiryId: number; answerId?: number };

export function parseEnquiryPayload(raw: string | null): EnquiryMailPayload | null {
  if (raw === null) return null;
  try {
    const value = JSON.parse(raw) as Partial<EnquiryMailPayload>;
    if (typeof value.enquiryId !== "number") return null;
    return typeof value.answerId === "number"
      ? { enquiryId: value.enquiryId, answerId: value.answerId }
      : { enquiryId: value.enquiryId };
  } catch {
    return null;
  }
}

export const hashToken = (token: string) => createHash("sha256").update(token).digest("hex");
