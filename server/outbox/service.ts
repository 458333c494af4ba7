import type { Config } from "../config.ts";
import type { OutboxKind } from "../db/schema.ts";
import type { Store } from "../db/store.ts";
import type { Log } from "../lib/log.ts";
import { retryPolicy } from "./delivery-rules.ts";
import { signedMailer } from "./dkim.ts";
import { removeMailFiles } from "./mail-files.ts";
import { type ComposeMail, startMailWorker } from "./outbox-worker.ts";
import { createOutboxRepository } from "./queue.ts";
import { createRecipientHealth, type OnUndeliverable } from "./recipient-health.ts";
import type { Suppressions } from "./suppressions.ts";

export type MailOptions = {
  /** How often an idle outbox worker looks for mail queued by other processes. */
  pollMs?: number;
  /** First wait before a temporary failure is retried; doubles each time. */
  retryBaseMs?: number;
  /** The time rows are due against (tests move it to the next hour's digest). */
  clock?: () => Date;
};

/**
 * The outbox of one server instance: its rows, the mail transport, and the
 * worker that sends every kind of mail the modules above hand it a composer
 * for (the newsletter's, the owner's notifications).
 */
export function startOutbox(
  store: Store,
  config: Pick<
    Config,
    | "SMTP_URL"
    | "mailFrom"
    | "DATA_DIR"
    | "MAIL_RATE_PER_MINUTE"
    | "MAIL_CONNECTIONS"
    | "BOUNCE_ADDRESS"
    | "DKIM_KEY_FILE"
    | "siteUrl"
  >,
  log: Log,
  options: MailOptions,
  composers: Partial<Record<OutboxKind, ComposeMail>>,
  /** Signs the return paths (server/outbox/verp.ts). */
  verpKey: string,
  /** What the worker asks before each mail, and tells of a refusal. */
  suppressions: Suppressions,
  /** What a mail's own module does when it hard-bounces at send time. */
  undeliverable?: OnUndeliverable,
) {
  const outbox = createOutboxRepository(store, {
    retryBaseMs: options.retryBaseMs ?? retryPolicy.baseMs,
    ...(options.clock ? { clock: options.clock } : {}),
  });
  const mailer = signedMailer(config, log);
  const worker = startMailWorker({
    outbox,
    mailer,
    ratePerMinute: config.MAIL_RATE_PER_MINUTE,
    // On SQLite a message waits behind each connection's: a connection that
    // finishes one starts the next at once, instead of idling while its
    // outcome goes back to this thread and the next row is claimed and
    // composed. On PostgreSQL each send holds its claim, a transaction on one
    // of the pool's connections, which the readers' requests need too
    // (docs/decisions/036-sending-in-flat-memory.md).
    inFlight: store.kind === "sqlite" ? config.MAIL_CONNECTIONS * 2 : config.MAIL_CONNECTIONS,
    ...(options.pollMs ? { pollMs: options.pollMs } : {}),
    ...(options.retryBaseMs ? { retryBaseMs: options.retryBaseMs } : {}),
    log,
    composers,
    health: createRecipientHealth(suppressions, {
      bounceAddress: config.BOUNCE_ADDRESS,
      verpKey,
      ...(undeliverable ? { undeliverable } : {}),
    }),
  });
  // Without SMTP_URL, a deletion takes its rows' files with it (withMailFiles);
  // the files of rows deleted while no process could (a restore, a crash) go now.
  const sweeping = config.SMTP_URL
    ? undefined
    : removeMailFiles(config.DATA_DIR, outbox.gone).catch((error: unknown) =>
        log.error({ err: error }, "outbox files could not be swept"),
      );
  return {
    outbox,
    suppressions,
    /** Looks for due rows now: after this instance queued one. */
    wake: () => worker.wake(),
    /** The transport, for mail outside the outbox: test copies and the console's sign-in links. */
    mailer,
    /** Finishes the messages in hand, then stops. */
    async stop() {
      await Promise.all([worker.stop(), sweeping]);
    },
  };
}
