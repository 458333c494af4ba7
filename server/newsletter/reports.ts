import { bounceOf } from "../outbox/recipient-health.ts";

/**
 * Delivery-status reports (RFC 3464) and feedback reports (RFC 5965, ARF), as
 * they arrive in the bounce mailbox (docs/mail.md, "Bounces and complaints").
 * Both are `multipart/report` mails (opened with mailparser) whose
 * machine-readable part is a block of header-like fields; this reads that part
 * and the addresses that could be our VERP return path. Nothing a report says is trusted until one of those
 * addresses carries a valid signature (server/outbox/verp.ts); then the
 * recipient is the one the outbox row holds, not the one the report names.
 */

export type ReportKind = "hard" | "soft" | "complaint";

type MailReport = {
  /** What the report says became of the mail; null when it calls for nothing (a delay, a success). */
  kind: ReportKind | null;
  /** Addresses that may be the mail's return path, most likely first. */
  returnPaths: string[];
  /** The receiving server's words, for the owner. */
  detail: string | null;
};

/** Header fields of a block, unfolded; names in lower case, the first of each name kept. */
function fields(block: string): Map<string, string> {
  const map = new Map<string, string>();
  for (const line of block
    .replace(/\r\n/g, "\n")
    .replace(/\n[ \t]+/g, " ")
    .split("\n")) {
    const colon = line.indexOf(":");
    if (colon <= 0) continue;
    const name = line.slice(0, colon).trim().toLowerCase();
    if (!map.has(name)) map.set(name, line.slice(colon + 1).trim());
  }
  return map;
}

/**
 * The words of a field that read as addresses. Split, not matched: a pattern
 * such as /[^\s<>]+@[^\s<>]+/ tries every start of a long word without an
 * `@`, and a 900 kB one (anyone can write to the bounce address) held the
 * event loop for minutes.
 */
const addressIn = (value: string | undefined): string[] =>
  value ? value.split(/[\s<>;,"]+/).filter((word) => /.@./.test(word)) : [];

/**
 * What one mail in the bounce mailbox reports; null when it is no report at
 * all, or one mailparser refuses (more than 1,000 parts, or 1 MB of header
 * lines): anyone can write to the bounce address, and such a mail, thrown
 * back to the mailbox's reader, would be kept and parsed again every round.
 */
export async function readReport(source: Buffer | string): Promise<MailReport | null> {
  const { simpleParser } = await import("mailparser");
  const mail = await simpleParser(source, {
    // The machine-readable part stays a part of its own, not folded into the text.
    keepDeliveryStatus: true,
    skipHtmlToText: true,
    skipTextToHtml: true,
    skipTextLinks: true,
    skipImageLinks: true,
  }).catch(() => null);
  if (!mail) return null;
  const parts = (type: RegExp) =>
    mail.attachments
      .filter((part) => type.test(part.contentType))
      .map((part) => part.content.toString());
  const headers = fields(mail.headerLines.map((header) => header.line).join("\n"));
  const returnPaths = [
    ...addressIn(headers.get("x-original-to")),
    ...addressIn(headers.get("delivered-to")),
    ...addressIn(headers.get("to")),
  ];
  // The copy of our own mail a report carries: its Return-Path is ours. Added one by one,
  // not as arguments of one call: a field may name more addresses than a call takes.
  for (const original of parts(/^(message\/rfc822|text\/rfc822-headers|message\/global-headers)/)) {
    const copied = fields(original.split(/\r?\n\r?\n/)[0] ?? "").get("return-path");
    for (const address of addressIn(copied)) returnPaths.push(address);
  }

  const [feedback] = parts(/^message\/feedback-report/);
  if (feedback !== undefined) {
    const report = fields(feedback);
    const type = (report.get("feedback-type") ?? "").toLowerCase();
    return {
      kind: ["abuse", "fraud", "other"].includes(type) ? "complaint" : null,
      returnPaths: [...addressIn(report.get("original-mail-from")), ...returnPaths],
      detail: `feedback report: ${type || "no type"}${report.get("user-agent") ? ` from ${report.get("user-agent")}` : ""}`,
    };
  }

  const [status] = parts(/^message\/(global-)?delivery-status/);
  if (status === undefined) return null;
  const blocks = status
    .replace(/\r\n/g, "\n")
    .split(/\n\s*\n/)
    .map(fields);
  // Our mails have one recipient each: the gravest recipient block decides.
  let kind: ReportKind | null = null;
  let detail: string | null = null;
  // A failure that says nothing of the address (the message taken for spam, the sending
  // server blocklisted: bounceOf) reports nothing, as it would at send time.
  for (const block of blocks) {
    const action = (block.get("action") ?? "").toLowerCase();
    if (action !== "failed") continue;
    const status = /\b([245]\.\d{1,3}\.\d{1,3})\b/.exec(block.get("status") ?? "")?.[1];
    const bounce = status ? bounceOf(status) : null;
    if (!bounce || kind === "hard" || kind === bounce) continue;
    kind = bounce;
    detail = (block.get("diagnostic-code") ?? block.get("status") ?? "").slice(0, 500) || null;
  }
  return { kind, returnPaths, detail };
}
