import type {
  ExpressionBuilder,
  ExpressionOrFactory,
  Kysely,
  SelectQueryBuilder,
  SqlBool,
  Transaction,
} from "kysely";
import type { Database, OutboxKind, OutboxTable } from "../db/schema.ts";

/*
 * The one way the modules above put mail into the outbox and take it out
 * again: they hand it messages, in their own transaction, and name what to
 * forget when what a message was about is deleted. Nothing else writes the
 * outbox table (the worker and the repository here send and record).
 */

type Writer = Kysely<Database> | Transaction<Database>;
type Where = ExpressionBuilder<Database, "outbox">;

/** A message to queue: what it is, to whom, and what its composer needs. */
export type QueuedMessage = {
  kind: OutboxKind;
  /** The recipient; none for a webhook call. */
  email?: string | null;
  /** A link's token for the recipient (an unsubscribe or confirmation token). */
  token?: string | null;
  /** JSON for the composer: which row the mail is about, never what a visitor wrote. */
  payload?: string | null;
  editionId?: number | null;
  /** When it is due, if not at once (a digest's window). */
  due?: string;
};

/** Queues messages, due at `at` unless they say otherwise. */
export async function enqueue(
  writer: Writer,
  at: string,
  messages: readonly QueuedMessage[],
): Promise<void> {
  if (messages.length === 0) return;
  await writer
    .insertInto("outbox")
    .values(
      messages.map((message) => ({
        kind: message.kind,
        edition_id: message.editionId ?? null,
        email: message.email ?? null,
        token: message.token ?? null,
        payload: message.payload ?? null,
        status: "queued" as const,
        next_attempt_at: message.due ?? at,
        created_at: at,
      })),
    )
    .execute();
}

/**
 * Queues one message of `kind` to each recipient `recipients` selects (its
 * `email`, then its `token`), in one statement however many they are: an
 * edition to a page of its subscribers. A recipient who has it already is
 * skipped (the table's unique index on edition and address). How many were queued.
 */
export async function enqueueEach(
  writer: Writer,
  at: string,
  { kind, editionId }: { kind: OutboxKind; editionId: number },
  // biome-ignore lint/suspicious/noExplicitAny: any table the recipients come from.
  recipients: SelectQueryBuilder<Database, any, { email: string; token: string | null }>,
): Promise<number> {
  const result = await writer
    .insertInto("outbox")
    .columns([
      "email",
      "token",
      "kind",
      "edition_id",
      "status",
      "attempts",
      "next_attempt_at",
      "created_at",
    ])
    .expression(
      // Typed: an INSERT … SELECT's columns are not checked against the table's.
      recipients.select((eb) => [
        eb.val<OutboxKind>(kind).as("kind"),
        eb.val(editionId).as("edition_id"),
        eb.val("queued").as("status"),
        eb.val(0).as("attempts"),
        eb.val(at).as("next_attempt_at"),
        eb.val(at).as("created_at"),
      ]),
    )
    .onConflict((conflict) => conflict.doNothing())
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0);
}

/** Which queued or sent messages to forget: of these kinds, with one of these tokens or payloads. */
export type Forgotten = {
  kinds: readonly OutboxKind[];
  tokens?: readonly string[];
  payloads?: readonly string[];
  /** `LIKE` patterns on the payload (a webhook body naming a deleted row). */
  payloadsLike?: readonly string[];
  /** Only messages in these states (those still queued, say); any state unless given. */
  statuses?: readonly OutboxTable["status"][];
};

/** Deletes the messages about something deleted: deleted means the outbox too. */
export async function forget(writer: Writer, match: Forgotten): Promise<void> {
  const { kinds, tokens = [], payloads = [], payloadsLike = [], statuses } = match;
  if (kinds.length === 0) return;
  const chunk = <T>(values: readonly T[], size: number) =>
    Array.from({ length: Math.ceil(values.length / size) }, (_, i) =>
      values.slice(i * size, i * size + size),
    );
  const matches: ExpressionOrFactory<Database, "outbox", SqlBool>[] = [
    ...chunk(tokens, 500).map((part) => (eb: Where) => eb("token", "in", part)),
    ...chunk(payloads, 500).map((part) => (eb: Where) => eb("payload", "in", part)),
    ...chunk(payloadsLike, 100).map(
      (part) => (eb: Where) => eb.or(part.map((pattern) => eb("payload", "like", pattern))),
    ),
  ];
  for (const where of matches) {
    await writer
      .deleteFrom("outbox")
      .where("kind", "in", kinds)
      .where(where)
      .$if(statuses !== undefined, (q) => q.where("status", "in", statuses ?? []))
      .execute();
  }
}

/**
 * What became of a sent message, from a bounce or a complaint about it: the
 * edition's figures count it once, and a complaint outranks a bounce.
 */
export async function recordFeedback(
  writer: Writer,
  rowId: number,
  feedback: "bounce" | "complaint",
): Promise<void> {
  await writer
    .updateTable("outbox")
    .set({ feedback })
    .where("id", "=", rowId)
    .where((eb) =>
      feedback === "complaint"
        ? eb.or([eb("feedback", "is", null), eb("feedback", "!=", "complaint")])
        : eb("feedback", "is", null),
    )
    .execute();
}
