import { type Kysely, sql } from "kysely";
import type { Database, DatabaseKind } from "../db/schema.ts";
import { takeTurn } from "../db/turns.ts";
import { networkFactor } from "../lib/address-limit.ts";
import { mailboxOf } from "../lib/mailbox.ts";
import { dayMs } from "../lib/time.ts";
import { replyMailRules, spellingsOf } from "./reply-watches.ts";

/*
 * The limits on confirmation mails (docs/product.md, "Reply mails"): per
 * address and per network, shared with the newsletter's, and per mailbox,
 * whoever asks.
 */

/** Whether a confirmation mail may be asked for: yes, or which limit refuses it. */
export type AdmitOutcome = "ok" | SenderLimited | "address_limited";
/** The sender's address had its hour's share of confirmation mails, or its network (`networkFactor` times as many). */
export type SenderLimited = "ip_limited" | "network_limited";

const sameAddress = (email: string) => sql<string>`lower(${email})`;

/**
 * The mailbox a confirmation mail counts against, loosely as a form's limit
 * counts (lib/mailbox.ts): every spelling of one inbox shares its day's share.
 */
const limitMailbox = (email: string) => mailboxOf(email, { loose: true });

/**
 * Who asks for a confirmation mail: HMACs of the address it comes from and of its
 * network (engagement/writer-keys.ts, `senderOf`), never either itself.
 */
export type Sender = { ip: string; network: string };

/**
 * Waits for the other requests from the sender's network, then from its address
 * (db/turns.ts), so requests at the same instant count one after another.
 */
export async function takeSenderTurns(kind: DatabaseKind, trx: Kysely<Database>, sender: Sender) {
  await takeTurn(kind, trx, "confirmation network", sender.network);
  await takeTurn(kind, trx, "confirmation connection", sender.ip);
}

/**
 * A confirmation mail asked by `sender` (reply mails' or the newsletter's, which
 * share the limits): `confirmation_requests` is written here alone.
 */
export const recordConfirmationRequest = (trx: Kysely<Database>, sender: Sender, at: string) =>
  trx
    .insertInto("confirmation_requests")
    .values({ ...sender, created_at: at })
    .execute();

/** The limit per network counts the confirmation mails of the last hour. */
const hourAgo = (now = new Date()) => new Date(now.getTime() - 3_600_000).toISOString();

/**
 * Whether `sender` asked for its hour's `max` confirmation mails already (either form's),
 * or its network for `networkFactor` times as many (requests from before it was kept have none).
 */
export async function hourShareSent(
  trx: Kysely<Database>,
  sender: Sender,
  now: Date,
  max: number,
): Promise<SenderLimited | null> {
  const counts = [
    ["ip_limited", "ip", sender.ip, max],
    ["network_limited", "network", sender.network, max * networkFactor],
  ] as const;
  for (const [limited, column, value, most] of counts) {
    const { count } = await trx
      .selectFrom("confirmation_requests")
      .select((eb) => eb.fn.countAll().as("count"))
      .where(column, "=", value)
      .where("created_at", ">", hourAgo(now))
      .executeTakeFirstOrThrow();
    if (Number(count) >= most) return limited;
  }
  return null;
}

/** Forgets the requests the limit no longer counts. */
export const forgetConfirmationRequests = (db: Kysely<Database>) =>
  db.deleteFrom("confirmation_requests").where("created_at", "<=", hourAgo()).execute();

/** The address this visitor left, in any case. */
export const addressOf = (trx: Kysely<Database>, visitorId: string, email: string) =>
  trx
    .selectFrom("reply_addresses")
    .select(["id", "status", "confirmation_sent_at"])
    .where("visitor_id", "=", visitorId)
    .where(sql<string>`lower(email)`, "=", sameAddress(email))
    .executeTakeFirst();

/** Whether a watch at this address (none yet: undefined) would send a confirmation mail now. */
export function needsConfirmation(
  address: Awaited<ReturnType<typeof addressOf>>,
  now: Date,
): boolean {
  if (!address) return true;
  const sent = address.confirmation_sent_at;
  return (
    address.status !== "confirmed" &&
    !(sent && now.getTime() - new Date(sent).getTime() < replyMailRules.resendAfterMs)
  );
}

/** Whether the address's mailbox (`limitMailbox`) had its day's share of confirmation mails already. */
export async function dayShareSent(
  trx: Kysely<Database>,
  kind: DatabaseKind,
  email: string,
  now: Date,
): Promise<boolean> {
  const mailbox = limitMailbox(email);
  const today = await trx
    .selectFrom("reply_addresses")
    .select("email")
    .where(spellingsOf(kind, email))
    .where("confirmation_sent_at", ">", new Date(now.getTime() - dayMs).toISOString())
    .execute();
  const sent = today.filter((row) => limitMailbox(row.email) === mailbox).length;
  return sent >= replyMailRules.maxConfirmationsPerMailboxPerDay;
}

/**
 * Before a comment asking for reply mails is stored: refuses one that would send a
 * confirmation mail past the limits (per IP address and network, shared with the newsletter's,
 * and per mailbox, whoever asks), so the form cannot flood an inbox. Counts the request if it sends one.
 */
export async function admit(
  { db, kind }: { db: Kysely<Database>; kind: DatabaseKind },
  settings: { clock: () => Date; maxPerIpPerHour: number },
  input: { visitorId: string; email: string; sender: Sender },
): Promise<AdmitOutcome> {
  const now = settings.clock();
  if (!needsConfirmation(await addressOf(db, input.visitorId, input.email), now)) return "ok";
  const { sender } = input;
  return db.transaction().execute(async (trx) => {
    await takeSenderTurns(kind, trx, sender);
    const limited = await hourShareSent(trx, sender, now, settings.maxPerIpPerHour);
    if (limited) return limited;
    if (await dayShareSent(trx, kind, input.email, now)) return "address_limited";
    await recordConfirmationRequest(trx, sender, now.toISOString());
    return "ok";
  });
}
