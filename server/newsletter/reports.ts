/**
 * Delivery-status reports (RFC 3464) and feedback reports (RFC 5965, ARF), as
 * they arrive in the bounce mailbox (docs/mail.md, "Bounces and complaints").
 * Both are `multipart/report` mails whose machine-readable part is a block of
 * header-like fields; this reads that part and the addresses that could be our
 * VERP return path. Nothing a report says is trusted until one of those
 * addresses carries a valid signature (server/outbox/verp.ts); then the
 * recipient is the one the outbox row holds, not the one the report names.
 */

export type ReportKind = "hard" | "soft" | "complaint";

export type MailReport = {
  /** What the report says became of the mail; null when it calls for nothing (a delay, a success). */
  kind: ReportKind | null;
  /** Addresses that may be the mail's return path, most likely first. */
  returnPaths: string[];
  /** The receiving server's words, for the owner. */
  detail: string | null;
};

type Part = { headers: Map<string, string>; body: string };

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

function splitHead(text: string): Part {
  const normal = text.replace(/\r\n/g, "\n");
  const end = normal.indexOf("\n\n");
  const head = end === -1 ? normal : normal.slice(0, end);
  const body = end === -1 ? "" : normal.slice(end + 2);
  return { headers: fields(head), body };
}

function parameter(value: string, name: string): string | undefined {
  const match = new RegExp(`;\\s*${name}\\s*=\\s*(?:"([^"]*)"|([^;\\s]+))`, "i").exec(value);
  return match ? (match[1] ?? match[2]) : undefined;
}

function decoded(part: Part): string {
  const encoding = (part.headers.get("content-transfer-encoding") ?? "").toLowerCase();
  if (encoding === "base64") return Buffer.from(part.body, "base64").toString("utf8");
  if (encoding === "quoted-printable") {
    return part.body
      .replace(/=\n/g, "")
      .replace(/=([0-9A-F]{2})/gi, (_m, hex: string) => String.fromCharCode(parseInt(hex, 16)));
  }
  return part.body;
}

/** Every leaf part of a message, multiparts opened up to a few levels deep. */
function leaves(part: Part, depth = 0): Part[] {
  const type = part.headers.get("content-type") ?? "text/plain";
  const boundary = parameter(type, "boundary");
  if (!/^multipart\//i.test(type) || !boundary || depth > 4) return [part];
  const delimiter = `--${boundary}`;
  const pieces = part.body.split(
    new RegExp(`^${delimiter.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}(?:--)?[ \\t]*$`, "m"),
  );
  return pieces
    .slice(1, -1)
    .map((piece) => splitHead(piece.replace(/^\n/, "")))
    .flatMap((child) => leaves(child, depth + 1));
}

const addressIn = (value: string | undefined): string[] =>
  value ? [...value.matchAll(/[^\s<>;,"]+@[^\s<>;,"]+/g)].map((m) => m[0]) : [];

/** What one mail in the bounce mailbox reports; null when it is no report at all. */
export function readReport(source: Buffer | string): MailReport | null {
  const message = splitHead(typeof source === "string" ? source : source.toString("latin1"));
  const parts = leaves(message);
  const typeOf = (part: Part) => (part.headers.get("content-type") ?? "").toLowerCase();
  const returnPaths = [
    ...addressIn(message.headers.get("x-original-to")),
    ...addressIn(message.headers.get("delivered-to")),
    ...addressIn(message.headers.get("to")),
  ];
  // The copy of our own mail a report carries: its Return-Path is ours.
  for (const original of parts.filter((part) =>
    /^(message\/rfc822|text\/rfc822-headers|message\/global-headers)/.test(typeOf(part)),
  )) {
    returnPaths.push(...addressIn(splitHead(decoded(original)).headers.get("return-path")));
  }

  const feedback = parts.find((part) => typeOf(part).startsWith("message/feedback-report"));
  if (feedback) {
    const report = fields(decoded(feedback));
    returnPaths.unshift(...addressIn(report.get("original-mail-from")));
    const type = (report.get("feedback-type") ?? "").toLowerCase();
    return {
      kind: ["abuse", "fraud", "other"].includes(type) ? "complaint" : null,
      returnPaths,
      detail: `feedback report: ${type || "no type"}${report.get("user-agent") ? ` from ${report.get("user-agent")}` : ""}`,
    };
  }

  const status = parts.find((part) => /^message\/(global-)?delivery-status/.test(typeOf(part)));
  if (!status) return null;
  const blocks = decoded(status)
    .replace(/\r\n/g, "\n")
    .split(/\n\s*\n/)
    .map(fields);
  // Our mails have one recipient each: the gravest recipient block decides.
  let kind: ReportKind | null = null;
  let detail: string | null = null;
  for (const block of blocks) {
    const action = (block.get("action") ?? "").toLowerCase();
    if (action !== "failed") continue;
    const code = /\b([245])\.\d{1,3}\.\d{1,3}\b/.exec(block.get("status") ?? "");
    const permanent = code?.[1] !== "4";
    if (kind !== "hard") kind = permanent ? "hard" : "soft";
    detail = (block.get("diagnostic-code") ?? block.get("status") ?? "").slice(0, 500) || null;
  }
  return { kind, returnPaths, detail };
}
