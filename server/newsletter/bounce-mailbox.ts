import type { Log } from "../lib/log.ts";
import { onOwnNetwork } from "../lib/loopback.ts";
import type { ListHealth } from "./list-health.ts";
import { repeatRounds } from "./schedules.ts";

/**
 * The bounce mailbox (docs/mail.md, "Bounces and complaints"): where
 * BOUNCE_ADDRESS's mail is delivered, read over IMAP (BOUNCE_IMAP_URL,
 * `imap://user:password@host:port/Mailbox`, INBOX by default) with imapflow.
 * Each mail is read, acted on through the list's health
 * (server/newsletter/list-health.ts), and deleted (one over `reportBytesMax`
 * unread); one that could not be handled (the database was away), or that
 * the server gave without its body, stays for the next round. Several instances
 * may read the same mailbox: a report handled twice changes nothing more.
 */

type MailboxRound = { read: number; acted: number; ignored: number; kept: number };

/** Mails fetched at once: the mailbox may hold thousands after a bad edition. */
const batchSize = 50;
/**
 * A report is a few kilobytes, with at most a copy of one of our mails;
 * anyone can write to the bounce address, so a larger mail is deleted unread.
 */
const reportBytesMax = 1_000_000;
/**
 * The bytes of the mails fetched at once, by the sizes the server reports: a
 * batch read whole is held in memory while it is read, and fifty of the
 * largest would be 50 MB of it (a single mail of `reportBytesMax` still fits).
 */
const batchBytesMax = 4_000_000;

/**
 * The mails of one listing, by the sizes the IMAP server gave: those too
 * large to be a report, and the rest in batches of at most `batchSize` mails
 * and `batchBytesMax` bytes, in their order. A row without a uid or a size is
 * not a mail of the listing: Dovecot adds a row of the flags another reader
 * changed (its `\Deleted`, by sequence number alone) to the answer.
 */
export function planBatches(
  rows: readonly { uid?: number | undefined; size?: number | undefined }[],
): { tooLarge: number[]; batches: number[][] } {
  const tooLarge: number[] = [];
  const batches: number[][] = [];
  const planned = new Set<number>();
  let bytes = 0;
  for (const { uid, size } of rows) {
    if (uid === undefined || size === undefined || planned.has(uid)) continue;
    planned.add(uid);
    if (size > reportBytesMax) tooLarge.push(uid);
    else {
      const last = batches.at(-1);
      if (!last || last.length >= batchSize || bytes + size > batchBytesMax) {
        batches.push([uid]);
        bytes = size;
      } else {
        last.push(uid);
        bytes += size;
      }
    }
  }
  return { tooLarge, batches };
}

/**
 * The mails of one batch in the rows the IMAP server answered its fetch
 * with, each once by uid. A row without a body is not a mail: a server may
 * add a row of the flags another reader changed (RFC 9051, 7.5.2) beside the
 * mail's own row. A mail of the batch answered only so is not deleted and
 * stays for the next round: `kept`, so the round's log says so.
 */
export function mailsOf(
  batch: readonly number[],
  rows: readonly { uid?: number | undefined; source?: Buffer | undefined }[],
): { sources: Map<number, Buffer>; kept: number } {
  const sources = new Map<number, Buffer>();
  const answered = new Set<number>();
  for (const { uid, source } of rows) {
    if (uid === undefined || !batch.includes(uid)) continue;
    answered.add(uid);
    if (source && !sources.has(uid)) sources.set(uid, source);
  }
  return { sources, kept: batch.filter((uid) => answered.has(uid) && !sources.has(uid)).length };
}

/**
 * ImapFlow says "Command failed" for a refused password and for a missing
 * mailbox alike: say which, and what in BOUNCE_IMAP_URL to change.
 */
function refusal(error: unknown, mailbox?: string): unknown {
  const failed = error as {
    authenticationFailed?: boolean;
    mailboxMissing?: boolean;
    tlsFailed?: boolean;
  };
  const because = (text: string) => new Error(text, { cause: error });
  if (failed.authenticationFailed) {
    return because(
      "the IMAP server refused the user name or password in BOUNCE_IMAP_URL (imap://user:password@host/Mailbox; percent-encode @, : and / in them)",
    );
  }
  if (failed.tlsFailed) {
    return because(
      "the IMAP server in BOUNCE_IMAP_URL offers no STARTTLS, so its password was not sent: use imaps://, or a server that offers STARTTLS",
    );
  }
  if (failed.mailboxMissing) {
    return because(
      `the IMAP server has no mailbox "${mailbox}": name an existing one at the end of BOUNCE_IMAP_URL (INBOX when none is named)`,
    );
  }
  return error;
}

export async function readBounceMailbox(
  url: string,
  health: Pick<ListHealth, "handleMailboxReport">,
): Promise<MailboxRound> {
  const { ImapFlow } = await import("imapflow");
  const address = new URL(url);
  const mailbox = decodeURIComponent(address.pathname.replace(/^\/+/, "")) || "INBOX";
  const client = new ImapFlow({
    host: address.hostname.replace(/^\[|\]$/g, ""),
    port: Number(address.port) || (address.protocol === "imaps:" ? 993 : 143),
    secure: address.protocol === "imaps:",
    // Over imap://, TLS by STARTTLS or no password: a server off this machine and its own
    // network that does not offer it may be an attacker on the way who took the offer out.
    ...(address.protocol === "imap:" && !onOwnNetwork(url) ? { doSTARTTLS: true } : {}),
    auth: {
      user: decodeURIComponent(address.username),
      pass: decodeURIComponent(address.password),
    },
    logger: false,
    connectionTimeout: 30_000,
    greetingTimeout: 30_000,
    socketTimeout: 120_000,
  });
  // A dropped connection is reported by the command that was waiting on it.
  client.on("error", () => {});
  const round: MailboxRound = { read: 0, acted: 0, ignored: 0, kept: 0 };
  await client.connect().catch((error: unknown) => {
    throw refusal(error);
  });
  try {
    const lock = await client.getMailboxLock(mailbox).catch((error: unknown) => {
      throw refusal(error, mailbox);
    });
    try {
      const uids = (await client.search({ all: true }, { uid: true })) || [];
      for (let start = 0; start < uids.length; start += batchSize) {
        const { tooLarge, batches } = planBatches(
          await client.fetchAll(
            uids.slice(start, start + batchSize),
            { uid: true, size: true },
            { uid: true },
          ),
        );
        round.read += tooLarge.length;
        round.ignored += tooLarge.length;
        if (tooLarge.length > 0) await client.messageDelete(tooLarge, { uid: true });
        for (const batch of batches) {
          const done: number[] = [];
          const { sources, kept } = mailsOf(
            batch,
            await client.fetchAll(batch, { uid: true, source: true }, { uid: true }),
          );
          round.read += sources.size + kept;
          round.kept += kept;
          for (const [uid, source] of sources) {
            try {
              round[await health.handleMailboxReport(source)] += 1;
              done.push(uid);
            } catch {
              round.kept += 1;
            }
          }
          if (done.length > 0) await client.messageDelete(done, { uid: true });
        }
      }
    } finally {
      lock.release();
    }
  } finally {
    await client.logout().catch(() => client.close());
  }
  return round;
}

/** Reads the mailbox every `everyMs`, the first time `firstMs` after the start (5 s; tests shorten it). */
export function startBounceMailbox({
  url,
  everyMs,
  firstMs = Math.min(everyMs, 5_000),
  health,
  log,
}: {
  url: string;
  everyMs: number;
  firstMs?: number;
  health: Pick<ListHealth, "handleMailboxReport">;
  log: Pick<Log, "info" | "warn">;
}) {
  const round = async () => {
    try {
      const result = await readBounceMailbox(url, health);
      if (result.read > 0) log.info(result, "bounce mailbox read");
    } catch (error) {
      log.warn({ err: error }, "the bounce mailbox could not be read");
    }
  };
  return repeatRounds(round, firstMs, everyMs);
}
