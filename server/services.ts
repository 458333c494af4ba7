import path from "node:path";
import type { FastifyBaseLogger } from "fastify";
import type { Transaction } from "kysely";
import type { loadItemIndex, loadServiceTitles } from "../content/catalog.ts";
import { assistantIndexFile } from "./assistant/retrieval.ts";
import { createAssistant, readIndexFile } from "./assistant/service.ts";
import { writerOf } from "./assistant/writer.ts";
import type { BusyCalendarOptions } from "./bookings/busy-calendar.ts";
import { createBookings } from "./bookings/service.ts";
import { replyComposers } from "./comments/reply-mails.ts";
import { createReplyWatches, replyKeys } from "./comments/reply-watches.ts";
import type { Config } from "./config.ts";
import { createOwnerRepository } from "./console/owner-repository.ts";
import { ownerCookieName } from "./console/owner-session.ts";
import type { Database } from "./db/schema.ts";
import { createSpentFormTokens } from "./db/spent-form-tokens.ts";
import type { Catalog } from "./engagement/catalog.ts";
import { createEngagement } from "./engagement/index.ts";
import { createReadCache, type ReadCache } from "./engagement/read-cache.ts";
import { resolveCookieSecret } from "./engagement/visitor.ts";
import { createWriterKeys } from "./engagement/writer-keys.ts";
import { createEnquiries } from "./enquiries/service.ts";
import { profileOf } from "./fediverse/pictures.ts";
import { createFediverse } from "./fediverse/service.ts";
import { createFormTokens } from "./lib/form-token.ts";
import { suppressionKey } from "./lib/mailbox.ts";
import { startHourlyRetention } from "./lib/retention.ts";
import { dayMs } from "./lib/time.ts";
import { createBlocklist } from "./moderation/blocklist.ts";
import { createCommentDefences, createCommentFormTokens } from "./moderation/defences.ts";
import { moderationActions } from "./moderation/owner-actions.ts";
import { createModeration } from "./moderation/service.ts";
import { createSpamFilter } from "./moderation/spam/filter.ts";
import { createSpamStore, forgetExamples } from "./moderation/spam/store.ts";
import { startBounceMailbox } from "./newsletter/bounce-mailbox.ts";
import { createListHealth } from "./newsletter/list-health.ts";
import { createEditionSchedules, startEditionSchedules } from "./newsletter/schedules.ts";
import { createNewsletter } from "./newsletter/service.ts";
import type { CommentActions } from "./notifications/compose.ts";
import { createNotifications } from "./notifications/service.ts";
import { withMailFiles } from "./outbox/mail-files.ts";
import { type MailOptions, startOutbox } from "./outbox/service.ts";
import { createSuppressions } from "./outbox/suppressions.ts";
import { verpKeyOf } from "./outbox/verp.ts";
import { createReaders } from "./readers/service.ts";
import { openStoreAndBus } from "./startup.ts";

/*
 * The site's domain modules on one store, read top to bottom: the store and
 * the event bus; secrets and keys, each derived once; the modules, each after
 * those it uses (docs/architecture.md, "Server floors"); the workers they
 * start; and one `close` that stops them in order. server/app.ts puts HTTP
 * in front of them.
 */

export type ServiceOptions = {
  config: Config;
  /** The outbox worker's timings (tests shorten them). */
  mail?: MailOptions;
  /** How often scheduled editions are looked for, how soon the bounce mailbox is first read (5 s each; tests shorten them). */
  scheduleEveryMs?: number;
  bounceFirstMs?: number;
  /** The clock of the console's links and sessions, comments' times, the Fediverse's queue, the assistant's day (tests move it on). */
  clock?: () => Date;
  /** How long a request waits for a PostgreSQL connection before a 503 (5 s; tests under load wait longer). */
  databaseWaitMs?: number;
  /** How often the readers' counts are written (5 s), and their clock (`clock` by default): tests set both. */
  readers?: { flushMs?: number; clock?: () => Date };
  /** A migrated empty SQLite database, copied at a first start (server/db/new-database.ts). */
  newDatabase?: string;
  /** The content folder, where the owner's picture is: content/ unless given (tests). */
  contentRoot?: string;
  /** The assistant's index (server/assistant/index-file.ts); by default the one built beside the pages. */
  assistantIndex?: () => string | null;
  /** The private addresses Fediverse deliveries may reach (tests' stand-ins; server/fediverse/service.ts). */
  privateInboxesAllowed?: (address: string) => boolean;
  /** Where the owner's busy calendar may be read from, and how often (tests'; server/bookings/busy-calendar.ts). */
  busyCalendar?: BusyCalendarOptions;
  /** How Fedify's side of the site is imported (tests fail a load) and a delivery's wait for an answer (server/fediverse/service.ts). */
  fediverse?: Pick<Parameters<typeof createFediverse>[0], "importFederation" | "answerMs">;
};

/** Events older than this are forgotten; a client away longer is told to resync. */
const eventRetentionMs = dayMs;
/** What the honeypot caught is kept this long, for the owner to look at, then forgotten. */
const spamRetentionMs = 30 * dayMs;

export async function startServices({
  config,
  mail = {},
  scheduleEveryMs,
  bounceFirstMs,
  clock = () => new Date(),
  databaseWaitMs,
  readers: readerOptions = {},
  newDatabase,
  contentRoot = path.resolve(import.meta.dirname, "../content"),
  clientRoot,
  // Beside the pages it was built with: BUILD_DIR's, or that of a site given by path (tests).
  assistantIndex = readIndexFile(
    assistantIndexFile(
      clientRoot === config.clientRoot ? config.buildDir : path.dirname(clientRoot),
    ),
  ),
  log,
  items,
  catalog,
  services,
  bookable,
  privateInboxesAllowed,
  busyCalendar,
  fediverse: fediverseOptions,
}: ServiceOptions & {
  /** Where the prerendered site lives. */
  clientRoot: string;
  log: FastifyBaseLogger;
  /** The stories' and science posts' ids and titles (content/catalog.ts). */
  items: ReturnType<typeof loadItemIndex>;
  catalog: Catalog;
  /** The services' ids and titles, for the enquiry and booking forms and the assistant. */
  services: ReturnType<typeof loadServiceTitles>;
  /** Whether the site has a booking page, which the assistant may point to. */
  bookable: () => boolean;
}) {
  const opened = await openStoreAndBus(config, log, {
    connectionWaitMs: databaseWaitMs,
    newDatabase,
  });
  const { events, bus, close: closeStore } = opened;
  const store = withMailFiles(opened.store, config);
  // Made after the database, which is refused when it is empty beside a
  // secret of an earlier start (server/startup.ts): a first start that stops
  // before its database exists leaves no secret behind.
  let cookieSecret: string;
  try {
    cookieSecret = resolveCookieSecret(config);
  } catch (error) {
    await closeStore();
    throw error;
  }
  const writerKeys = createWriterKeys(cookieSecret);
  const addressKey = suppressionKey(cookieSecret);
  // The owner's notifications and readers' reply mails keep the outbox's time (tests move it).
  const mailClock = mail.clock ?? (() => new Date());
  const notifications = createNotifications(config, { clock: mailClock, titles: items.science });
  const replies = {
    clock: mailClock,
    maxPerIpPerHour: config.SUBSCRIBE_CONFIRMATIONS_PER_IP_PER_HOUR,
    ...replyKeys(cookieSecret),
    addressKey,
  };
  const replyWatches = createReplyWatches(store, replies);
  // The repositories, the item reads from memory (read-cache.ts), the owner's
  // moderation and the spam filter with what it learns from. A write's own
  // instance forgets the item's cached reads the moment it commits, before it
  // answers; the bus brings the news to the other instances.
  let cached: ReadCache | undefined;
  const engagement = createEngagement(
    store,
    events,
    {
      committed(event) {
        cached?.committedHere(event);
        bus.committed(event);
      },
    },
    writerKeys,
    forgetExamples,
    notifications.notifier,
    replies,
    clock,
  );
  const reads = createReadCache({
    reactions: engagement.reactions,
    comments: engagement.comments,
    bus,
  });
  cached = reads;
  const spamStore = createSpamStore(store);
  const spam = {
    store: spamStore,
    filter: createSpamFilter({
      store: spamStore,
      holdLinksFromNew: config.HOLD_LINKS_FROM_NEW,
      ...(config.SPAM_MODEL_FILE ? { modelFile: config.SPAM_MODEL_FILE } : {}),
      log,
    }),
  };
  const moderation = createModeration({
    store,
    comments: engagement.comments,
    mode: config.MODERATION,
    spam: spamStore,
  });
  // Every clean-up of old rows, one at a time (server/lib/retention.ts): old
  // events, stale subscriptions and reply addresses, bans that ended, caught spam.
  const retention = startHourlyRetention(log);
  for (const prune of [
    () => events.pruneBefore(new Date(Date.now() - eventRetentionMs)),
    engagement.subscribers.prune,
    replyWatches.prune,
    moderation.pruneBans,
    () => engagement.comments.pruneSpam(new Date(Date.now() - spamRetentionMs)),
  ]) {
    retention.add(prune, { failure: "old records could not be pruned" });
  }
  const blocklist = createBlocklist(config.DATA_DIR, log);
  const spentFormTokens = createSpentFormTokens(store);
  const defences = createCommentDefences({
    config,
    blocklist,
    keys: writerKeys,
    formTokens: createCommentFormTokens(
      cookieSecret,
      config.COMMENT_MIN_SECONDS * 1000,
      spentFormTokens,
    ),
    comments: engagement.comments,
    moderation,
    spam: spam.filter,
  });
  // Enquiries and booked calls (docs/product.md), with the same form defences.
  const formDeps = (purpose: string) => ({
    store,
    config,
    cookieSecret,
    services,
    blocklist,
    keys: writerKeys,
    formTokens: createFormTokens(cookieSecret, {
      purpose,
      minimumMs: config.COMMENT_MIN_SECONDS * 1000,
      spent: spentFormTokens,
    }),
    moderation,
    clock: mailClock,
  });
  const bookings = createBookings({ ...formDeps("booking form timing"), log, busyCalendar });
  const enquiries = createEnquiries({
    ...formDeps("enquiry form timing"),
    spam: spam.filter,
    ownerZone: bookings.ownerZone,
  });
  // The site on the Fediverse (docs/fediverse.md): Fedify loads on first use.
  const fediverse = createFediverse({
    store,
    bus,
    siteUrl: config.siteUrl,
    clientRoot,
    handle: config.fediverseHandle,
    profile: profileOf(config.owner, contentRoot),
    allowPrivateAddresses: config.ALLOW_PRIVATE_ADDRESSES_IN_TESTS,
    ...(privateInboxesAllowed ? { privateInboxesAllowed } : {}),
    ...fediverseOptions,
    softwareVersion: "1.0.0",
    log,
    inbox: {
      comments: engagement.comments,
      defences,
      commentable: (postId) => catalog.science.has(postId),
    },
    // "/science/soap" is the topic "science:soap": the pages showing it render again.
    changed: (itemPath) => reads.invalidate(itemPath.slice(1).replace("/", ":")),
    moderation: config.MODERATION,
    mentionBreaksRules: defences.breaksRules,
    clock,
  });
  const ownerConsole = createOwnerRepository(store, clock);
  // A notification mail's links act as the owner, and the hourly retention deletes, unsigned.
  const unsigned = ownerConsole.actor(null);
  const ownerActions = moderationActions(moderation, engagement);
  const act: CommentActions = {
    approve: async (actor, id) => (await ownerActions.approve(actor, id)) === "approved",
    delete: async (actor, id) => (await ownerActions.remove(actor, id)) === "deleted",
  };
  const owner = notifications.attach(store, unsigned, act, bookings.ownerZone);
  const suppressions = createSuppressions(store, addressKey, { clock: mailClock });
  const fillSubscribers = () => suppressions.fillDigests(["subscribers"]);
  const newsletter = createNewsletter(store, config, cookieSecret, fillSubscribers);
  const verpKey = verpKeyOf(cookieSecret);
  const mailOut = startOutbox(
    store,
    config,
    log,
    mail,
    {
      ...newsletter.composers,
      ...owner.composers,
      ...enquiries.composers,
      ...bookings.composers,
      ...replyComposers({ links: replies.links, siteUrl: config.siteUrl, titles: items.science }),
    },
    verpKey,
    suppressions,
    bookings.undeliverable,
  );
  for (const queuing of [notifications, enquiries, bookings]) queuing.onQueued(mailOut.wake);
  engagement.comments.onRepliesQueued(mailOut.wake);
  const webhooks = owner.start(mailOut.outbox, log, mail, retention);
  // Bounces and complaints, from the bounce mailbox and providers' webhooks.
  const listHealth = createListHealth({
    store,
    suppressions,
    subscribers: engagement.subscribers,
    bounceAddress: config.BOUNCE_ADDRESS,
    verpKey,
    undeliverable: bookings.undeliverable,
  });
  const bounceMailbox = config.BOUNCE_IMAP_URL
    ? startBounceMailbox({
        url: config.BOUNCE_IMAP_URL,
        everyMs: config.BOUNCE_IMAP_POLL_SECONDS * 1000,
        firstMs: bounceFirstMs,
        health: listHealth,
        log: log,
      })
    : null;
  // Editions sent later: each instance looks every few seconds; one claims each (docs/mail.md).
  const scheduledEditions = startEditionSchedules({
    schedules: createEditionSchedules(store),
    editions: newsletter.editions,
    ...(scheduleEveryMs ? { everyMs: scheduleEveryMs } : {}),
    queued: mailOut.wake,
    by: unsigned,
    log: log,
  });
  // Readership (docs/product.md, "Readers"): counted in memory, written every few seconds.
  const readers = createReaders({
    store,
    enabled: config.ANALYTICS,
    rawDays: config.ANALYTICS_RAW_DAYS,
    perMinutePerAddress: config.ANALYTICS_VIEWS_PER_MINUTE_PER_IP,
    siteUrl: config.siteUrl,
    ownerCookie: ownerCookieName(config.siteUrl),
    ownerZone: bookings.ownerZone,
    clock,
    ...readerOptions,
  });
  const counting = readers.start(log, retention);
  /** Deletes hourly what `prune` finds past its retention; the trail says how many, in its transaction. */
  const retain = (what: string, prune: (trx: Transaction<Database>) => Promise<number>) =>
    retention.add(
      () => unsigned.act(prune, (count) => count > 0 && [`${what} retention`, `${count} deleted`]),
      { failure: `old ${what} could not be deleted` },
    );
  // The site's own assistant: its index is read at the first question.
  const assistant = createAssistant({
    store,
    indexJson: assistantIndex,
    cookieSecret,
    retentionDays: config.ASSISTANT_RETENTION_DAYS,
    bookings: bookable,
    firstCall: () => bookings.repository.availability(),
    services,
    writer: writerOf(config, log, clock),
    attribute: readers.attribute,
    clock,
  });
  retain("enquiries", (trx) => enquiries.repository.prune(enquiries.retentionDays, trx));
  retain("bookings", (trx) => bookings.repository.prune(bookings.retentionDays, trx));
  retain("Fediverse given-up records", (trx) => fediverse.repository.pruneGivenUp(undefined, trx));
  retain("questions", (trx) => assistant.repository.prune(assistant.retentionDays, trx));
  retention.add(suppressions.fillDigests, {
    failure: "addresses could not be given their digests",
  });
  const close = async () => {
    // A clean-up under way finishes before the store closes.
    await retention.stop();
    await Promise.all([fediverse.stop(), bookings.stop()]);
    await counting.stop();
    // The message in hand is finished and recorded before the database closes.
    await scheduledEditions.stop();
    await Promise.all([mailOut.stop(), webhooks.stop(), bounceMailbox?.stop()]);
    reads.close();
    await closeStore();
  };
  return {
    store,
    bus,
    cookieSecret,
    engagement,
    reads,
    moderation,
    spam,
    defences,
    enquiries,
    bookings,
    fediverse,
    owner,
    newsletter,
    mailOut,
    replyWatches,
    listHealth,
    ownerConsole,
    readers,
    assistant,
    close,
  };
}
