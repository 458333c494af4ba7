import type { Enquiry } from "../../contract/enquiries.ts";
import { toCsv } from "../lib/csv.ts";

const columns = [
  "id",
  "created_at",
  "status",
  "kept",
  "service",
  "name",
  "email",
  "organisation",
  "timeline",
  "message",
  "answers",
] as const;

/**
 * Enquiries as CSV for a spreadsheet: everything a sender typed is anyone's
 * text, so a cell that a spreadsheet would run as a formula gets a leading '
 * (server/lib/csv.ts).
 */
export function enquiriesCsv(enquiries: Enquiry[]): string {
  return toCsv([
    [...columns],
    ...enquiries.map((enquiry) => [
      String(enquiry.id),
      enquiry.createdAt,
      enquiry.status,
      enquiry.kept ? "yes" : "no",
      enquiry.serviceTitle,
      enquiry.name,
      enquiry.email,
      enquiry.organisation ?? "",
      enquiry.timeline ?? "",
      enquiry.message,
      String(enquiry.answers.length),
    ]),
  ]);
}
