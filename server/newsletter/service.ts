import type { Config } from "../config.ts";
import type { OutboxKind } from "../db/schema.ts";
import type { Store } from "../db/store.ts";
import { createFormTickets, createFormTokens } from "./form-token.ts";
import { createMailer, type Mailer } from "./mailer.ts";
import { createOutboxRepository, retryPolicy } from "./outbox-repository.ts";
import { type ComposeMail, startOutboxWorker, type WorkerLog } from "./outbox-worker.ts";

export type MailOptions = {
  /** How often an idle outbox worker looks for mail queued by other processes. */
  pollMs?: number;
  /** First wait before a temporary failure is retried; doubles each time. */
  retryBaseMs?: number;
  /** Replaces the transport chosen from SMTP_URL (benchmarks). */
  mailer?: Mailer;
  /** The time rows are due against (tests move it to the next hour's digest). */
  clock?: () => Date;
};

/** The outbox worker of one server instance, with the secrets of the subscription form. */
export function startNewsletter(
  store: Store,
  config: Config,
  cookieSecret: string,
  log: WorkerLog,
  options: MailOptions = {},
  /** Mails of further outbox kinds (the owner's notifications), sent with the rest. */
  composers: Partial<Record<OutboxKind, ComposeMail>> = {},
) {
  const outbox = createOutboxRepository(store, {
    retryBaseMs: options.retryBaseMs ?? retryPolicy.baseMs,
    ...(options.clock ? { clock: options.clock } : {}),
  });
  const mailer =
    options.mailer ??
    createMailer(
      { smtpUrl: config.SMTP_URL, from: config.mailFrom, dataDir: config.DATA_DIR },
      log,
    );
  const worker = startOutboxWorker({
    outbox,
    mailer,
    siteUrl: config.siteUrl,
    ratePerMinute: config.MAIL_RATE_PER_MINUTE,
    ...(options.pollMs ? { pollMs: options.pollMs } : {}),
    log,
    composers,
  });
  return {
    deps: {
      formTokens: createFormTokens(cookieSecret),
      formTickets: createFormTickets(cookieSecret),
      confirmationsPerIpPerHour: config.SUBSCRIBE_CONFIRMATIONS_PER_IP_PER_HOUR,
      mailQueued: () => worker.wake(),
    },
    outbox,
    wake: () => worker.wake(),
    /** The transport, for mail outside the outbox: test copies and the console's sign-in links. */
    mailer,
    stop: () => worker.stop(),
  };
}
