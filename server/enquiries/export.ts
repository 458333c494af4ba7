import type { Enquiry } from "../../contract/enquiries.ts";
import { toCsv } from "../lib/csv.ts";

/** The export's columns: a heading, and the cell an enquiry writes under it. */
const columns: [string, (enquiry: Enquiry) => string][] = [
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
];

/**
 * Enquiries as CSV for a spreadsheet: everything a sender typed is anyone's
 * text, so a cell that a spreadsheet would run as a formula gets a leading '
 * (server/lib/csv.ts).
 */
export function enquiriesCsv(enquiries: Enquiry[]): string {
  return toCsv([
    columns.map(([heading]) => heading),
    ...enquiries.map((enquiry) => columns.map(([, cell]) => cell(enquiry))),
  ]);
}
