import { randomBytes } from "node:crypto";
import {
  type Expression,
  type ExpressionBuilder,
  type Selectable,
  type SqlBool,
  sql,
} from "kysely";
import type { Enquiry, EnquiryStatusName, ValidEnquiry } from "../../contract/enquiries.ts";
import { isTimeZone } from "../../contract/time-zones.ts";
import { transact } from "../db/owner-actor.ts";
import type { Database, EnquiriesTable } from "../db/schema.ts";
import { containsText, type Db, type Store } from "../db/store.ts";
import { takeTurn } from "../db/turns.ts";
import { networkFactor } from "../lib/address-limit.ts";
import { toIso, weeksAround } from "../lib/time.ts";
import { newToken, tokenDigest } from "../lib/tokens.ts";
import { enqueue, type QueuedMessage } from "../outbox/queue.ts";
import { createEnquiryErasure } from "./erasure.ts";
import { acknowledgementIntervalMs, type EnquiryMailPayload } from "./outbox-rows.ts";

/**
 * Where enquiries live (docs/product.md, "Enquiries"). Each one is written in
 * one transaction with the mails and the webhook call it causes, as outbox
 * rows, so an enquiry the form acknowledged is never a lost notification,
 * and deleting it takes those rows with it: nothing of it stays behind in a
 * queue. Outbox rows name their enquiry in a payload of a fixed shape
 * (`{"enquiryId":N…`), which is how they are found again.
 */

type EnquiryRow = Selectable<EnquiriesTable>;

export type StoredAnswer = Enquiry["answers"][number];
/**
 * An enquiry as the owner reads it, less its service's title, with its mail
 * thread's id and the zone the sender's mails tell their times in.
 */
export type StoredEnquiry = Omit<Enquiry, "serviceTitle"> & { threadId: string; zone: string };

function toStored(row: EnquiryRow, answers: StoredAnswer[]): StoredEnquiry {
  return {
    id: row.id,
    name: row.name,
    email: row.email,
    service: row.service,
    organisation: row.organisation,
    timeline: row.timeline,
    message: row.message,
    status: row.status,
    kept: Number(row.kept) === 1,
    threadId: row.thread_id,
    zone: row.zone && isTimeZone(row.zone) ? row.zone : "UTC",
    createdAt: toIso(row.created_at),
    updatedAt: toIso(row.updated_at),
    answers,
  };
}

/** What the hourly limits count an enquiry by, and the most an hour from one connection. */
type HourlyLimit = { ipHash: string; networkHash: string; email: string; max: number };

type NewEnquiry = {
  enquiry: ValidEnquiry;
  ipHash: string;
  networkHash: string;
  /** The most enquiries an hour from one connection, and by one email address. */
  perHour: number;
  /** HMAC of the sender's address, for the acknowledgement's hourly limit. */
  addressHash: string;
  /** The host part of the acknowledgement's Message-ID. */
  messageIdHost: string;
  /** Where the owner's mail goes; none without it. */
  ownerEmail: string | undefined;
  /** The webhook body, when a webhook is configured. */
  webhookBody?: (id: number, createdAt: string) => string;
  /**
   * The spam classifier takes it for advertising: it is kept and the owner is
   * told, but the sender's address gets no acknowledgement, so the form cannot
   * carry junk to an address someone else typed in.
   */
  likelyJunk?: boolean;
};

export function createEnquiriesRepository(store: Store, clock: () => Date = () => new Date()) {
  const { db } = store;
  const erasure = createEnquiryErasure(store, clock);

  async function answersOf(trx: Db, ids: number[]): Promise<Map<number, StoredAnswer[]>> {
    const byEnquiry = new Map<number, StoredAnswer[]>();
    if (ids.length === 0) return byEnquiry;
    const rows = await trx
      .selectFrom("enquiry_answers")
      .selectAll()
      .where("enquiry_id", "in", ids)
      .orderBy("id")
      .execute();
    for (const row of rows) {
      const list = byEnquiry.get(row.enquiry_id) ?? [];
      list.push({ id: row.id, body: row.body, createdAt: toIso(row.created_at) });
      byEnquiry.set(row.enquiry_id, list);
    }
    return byEnquiry;
  }

  /**
   * Which hourly limit an enquiry sent at `now` meets, if any: `max` enquiries
   * in the hour before from one connection (its HMAC) or by one email address
   * ("connection"), or `networkFactor` times as many from the connection's
   * network ("network"; enquiries from before it was kept have none).
   */
  async function limited(
    { ipHash, networkHash, email, now, max }: HourlyLimit & { now: Date },
    within: Db = db,
  ): Promise<"connection" | "network" | null> {
    const since = new Date(now.getTime() - 60 * 60 * 1000).toISOString();
    const count = async (
      where: (eb: ExpressionBuilder<Database, "enquiries">) => Expression<SqlBool>,
    ) => {
      const row = await within
        .selectFrom("enquiries")
        .select((eb) => eb.fn.countAll<number | string>().as("n"))
        .where("created_at", ">=", since)
        .where(where)
        .executeTakeFirstOrThrow();
      return Number(row.n);
    };
    if ((await count((eb) => eb("ip_hash", "=", ipHash))) >= max) return "connection";
    const sameEmail = await count((eb) => eb(sql<string>`lower(email)`, "=", email.toLowerCase()));
    if (sameEmail >= max) return "connection";
    const fromNetwork = await count((eb) => eb("network_hash", "=", networkHash));
    return fromNetwork >= max * networkFactor ? "network" : null;
  }

  return {
    ...erasure,
    limited,

    /**
     * Stores an enquiry and queues what follows from it: the owner's mail,
     * the sender's acknowledgement (unless this address had one within eight
     * hours) and the webhook call. Returns its id, whether an acknowledgement
     * was queued, and the deletion link's token, which only that mail carries.
     */
    async create(
      input: NewEnquiry,
    ): Promise<{ id: number; acknowledged: boolean } | "connection" | "network"> {
      const now = clock();
      const at = now.toISOString();
      const deletionToken = newToken();
      const threadId = `<enquiry.${randomBytes(12).toString("hex")}@${input.messageIdHost}>`;
      const { enquiry } = input;
      return db.transaction().execute(async (trx) => {
        // Counted in turn with the others from the network and the connection, then for the address.
        await takeTurn(store.kind, trx, "enquiry network", input.networkHash);
        await takeTurn(store.kind, trx, "enquiry connection", input.ipHash);
        await takeTurn(store.kind, trx, "enquiry address", enquiry.email.toLowerCase());
        const { ipHash, networkHash } = input;
        const limit = { ipHash, networkHash, email: enquiry.email, now, max: input.perHour };
        const full = await limited(limit, trx);
        if (full) return full;
        const { id } = await trx
          .insertInto("enquiries")
          .values({
            name: enquiry.name,
            email: enquiry.email,
            service: enquiry.service,
            organisation: enquiry.organisation,
            timeline: enquiry.timeline,
            message: enquiry.message,
            ip_hash: input.ipHash,
            network_hash: input.networkHash,
            thread_id: threadId,
            deletion_token_hash: tokenDigest(deletionToken),
            zone: enquiry.zone ?? null,
            created_at: at,
            updated_at: at,
          })
          .returning("id")
          .executeTakeFirstOrThrow();
        // One statement decides, so two instances cannot both acknowledge
        // the same address within the interval.
        const claimed = input.likelyJunk
          ? undefined
          : await trx
              .insertInto("enquiry_acknowledgements")
              .values({ address_hash: input.addressHash, sent_at: at })
              .onConflict((conflict) =>
                conflict
                  .column("address_hash")
                  .doUpdateSet({ sent_at: at })
                  .where(
                    "enquiry_acknowledgements.sent_at",
                    "<=",
                    new Date(now.getTime() - acknowledgementIntervalMs).toISOString(),
                  ),
              )
              .returning("address_hash")
              .executeTakeFirst();
        const payload = JSON.stringify({ enquiryId: id } satisfies EnquiryMailPayload);
        const noticePayload = input.likelyJunk
          ? JSON.stringify({ enquiryId: id, likelyJunk: true } satisfies EnquiryMailPayload)
          : payload;
        const rows: QueuedMessage[] = [];
        if (input.ownerEmail) {
          rows.push({
            kind: "enquiry_notice",
            email: input.ownerEmail,
            token: null,
            payload: noticePayload,
          });
        }
        if (claimed) {
          // The token rests here only until the mail is sent (server/outbox/queue.ts).
          rows.push({ kind: "enquiry_ack", email: enquiry.email, token: deletionToken, payload });
        }
        if (input.webhookBody) {
          rows.push({
            kind: "webhook",
            email: null,
            token: null,
            payload: input.webhookBody(id, at),
          });
        }
        await enqueue(trx, at, rows);
        return { id, acknowledged: Boolean(claimed) };
      });
    },

    async get(id: number, trx: Db = db): Promise<StoredEnquiry | undefined> {
      const row = await trx
        .selectFrom("enquiries")
        .selectAll()
        .where("id", "=", id)
        .executeTakeFirst();
      if (!row) return undefined;
      return toStored(row, (await answersOf(trx, [id])).get(id) ?? []);
    },

    /** Newest first; `q` searches name, email, organisation and message. */
    async list({
      q,
      status,
      service,
      limit = 500,
    }: {
      q?: string | undefined;
      status?: EnquiryStatusName | undefined;
      service?: string | undefined;
      limit?: number;
    } = {}): Promise<StoredEnquiry[]> {
      const rows = await db
        .selectFrom("enquiries")
        .selectAll()
        .$if(status !== undefined, (query) => query.where("status", "=", status ?? "new"))
        .$if(service !== undefined, (query) => query.where("service", "=", service ?? ""))
        .$if(q !== undefined && q !== "", (query) =>
          query.where((eb) =>
            eb.or(
              ["name", "email", "organisation", "message"].map((column) =>
                containsText(column, q ?? ""),
              ),
            ),
          ),
        )
        .orderBy("created_at", "desc")
        .orderBy("id", "desc")
        .limit(limit)
        .execute();
      const answers = await answersOf(
        db,
        rows.map((row) => row.id),
      );
      return rows.map((row) => toStored(row, answers.get(row.id) ?? []));
    },

    async update(
      id: number,
      change: { status?: EnquiryStatusName | undefined; kept?: boolean | undefined },
      within: Db = db,
    ): Promise<boolean> {
      const result = await within
        .updateTable("enquiries")
        .set({
          updated_at: clock().toISOString(),
          ...(change.status ? { status: change.status } : {}),
          ...(change.kept !== undefined ? { kept: change.kept ? 1 : 0 } : {}),
        })
        .where("id", "=", id)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) > 0;
    },

    /** Records the owner's answer, queues its mail and marks the enquiry answered. */
    async answer(id: number, body: string, within: Db = db): Promise<StoredAnswer | undefined> {
      const at = clock().toISOString();
      return transact(within, async (trx) => {
        const row = await trx
          .updateTable("enquiries")
          .set({ status: "answered", updated_at: at })
          .where("id", "=", id)
          .returning(["id", "email"])
          .executeTakeFirst();
        if (!row) return undefined;
        const answer = await trx
          .insertInto("enquiry_answers")
          .values({ enquiry_id: id, body, created_at: at })
          .returning("id")
          .executeTakeFirstOrThrow();
        await enqueue(trx, at, [
          {
            kind: "enquiry_answer",
            email: row.email,
            payload: JSON.stringify({
              enquiryId: id,
              answerId: answer.id,
            } satisfies EnquiryMailPayload),
          },
        ]);
        return { id: answer.id, body, createdAt: at };
      });
    },

    /** Enquiries per week (from Monday's midnight in `zone`) by service, over the last `weeks` weeks. */
    async perWeek(
      weeks: number,
      zone: string,
    ): Promise<{ week: string; counts: Record<string, number> }[]> {
      const range = weeksAround(clock(), weeks, 0, zone);
      const rows = await db
        .selectFrom("enquiries")
        .select(["service", "created_at"])
        .where("created_at", ">=", range.from)
        .execute();
      const result = range.starts.map((week) => ({ week, counts: {} as Record<string, number> }));
      for (const row of rows) {
        const bucket = result[range.indexOf(row.created_at)];
        if (bucket) bucket.counts[row.service] = (bucket.counts[row.service] ?? 0) + 1;
      }
      return result;
    },
  };
}

export type EnquiriesRepository = ReturnType<typeof createEnquiriesRepository>;
