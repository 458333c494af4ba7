import type { Federation } from "@fedify/fedify";
import type { Recipient } from "@fedify/fedify/vocab";
import type { Store } from "../db/store.ts";
import type { EventBus } from "../events/bus.ts";
import { onFirstUse } from "../lib/on-first-use.ts";
import {
  createInboxCheck,
  createRemoteFetch,
  type HostLookups,
  type InboxVerdict,
} from "../lib/safe-fetch.ts";
import { blockedSenders } from "./blocks.ts";
import type { AnswerMs } from "./deadlines.ts";
import type { Profile } from "./federation.ts";
import type { InboxDeps } from "./inbox.ts";
import { createKvStore } from "./kv-store.ts";
import type { Logger } from "./logging.ts";
import { createMessageQueue } from "./message-queue.ts";
import { fediverseActions } from "./owner-actions.ts";
import { createOwnerReplies } from "./owner-replies.ts";
import { createFediverseRepository } from "./repository.ts";
import { fediverseRoutes } from "./routes.ts";
import { accountPath, isItemPath } from "./sent-records.ts";
import { readSiteItems, type SiteItem } from "./site-items.ts";
import { createWebmentions } from "./webmentions.ts";

/*
 * The site on the Fediverse (docs/fediverse.md), put together. Fedify and
 * its vocabulary weigh about 70 MB and seconds of CPU to load, so they are
 * loaded only when first needed (server/lib/on-first-use.ts): a request for
 * one of its addresses, deliveries waiting in the queue, or something to
 * send to followers. A site nobody follows, asked for nothing of the sort,
 * never loads them.
 */

type FediverseOptions = {
  store: Store;
  bus: Pick<EventBus, "subscribeAll" | "healthy">;
  siteUrl: string;
  clientRoot: string;
  handle: string;
  profile: Profile;
  allowPrivateAddresses: boolean;
  /** Which private addresses deliveries may reach, instead of all or none as above (tests' stand-ins). */
  privateInboxesAllowed?: (address: string) => boolean;
  /** How Fedify's side of the site is imported: ./federation.ts unless given (tests fail a load). */
  importFederation?: () => Promise<typeof import("./federation.ts")>;
  softwareVersion: string;
  log: Logger;
  /** What the inbox takes from the site; the rest is the service's own. */
  inbox: Pick<InboxDeps, "comments" | "defences" | "commentable">;
  /** An item's Fediverse figures changed (likes, boosts): what shows them reads again. */
  changed?: (itemPath: string) => void;
  /** Whether webmentions wait for the owner (MODERATION). */
  moderation: "off" | "first" | "all";
  /** Whether a webmention's words or author's name break a comment's rules (moderation/defences.ts): it waits then. */
  mentionBreaksRules?: (text: string, name: string | null) => boolean;
  /** The queue's clock: when a message is due, and given up (tests move it). */
  clock?: () => Date;
  /** How long a delivery's post waits for its answer: 15 s unless given (tests wait less). */
  answerMs?: AnswerMs;
};

export function createFediverse(options: FediverseOptions) {
  const { store, siteUrl, log } = options;
  const repository = createFediverseRepository(store);
  /** The blocks in memory, which the inbox consults before it reads a post. */
  const senders = blockedSenders({
    targets: async () => (await repository.blocks()).map((block) => block.target),
    bus: options.bus,
    log,
  });
  const kv = createKvStore(store);
  const userAgent = `EngageWithEngineer/${options.softwareVersion} (+${siteUrl})`;
  const remoteFetch = createRemoteFetch({ allowPrivate: options.allowPrivateAddresses, userAgent });
  const inboxesAllowed = options.privateInboxesAllowed ?? options.allowPrivateAddresses;
  const inboxAllowed = createInboxCheck(inboxesAllowed);
  // A delivery's posts are checked as they connect, as its inbox was before, and where it redirects.
  const queue = createMessageQueue(store, log, (message) => replies.sendTakeBack(message), {
    ...(options.clock ? { clock: options.clock } : {}),
    ...(options.answerMs ? { answerMs: options.answerMs } : {}),
    post: createRemoteFetch({ allowPrivate: inboxesAllowed, userAgent }),
  });
  /**
   * Whether every inbox an account names may be posted to now: nothing is
   * sent to, nor a follower kept with, an inbox on a private address.
   */
  async function deliverable(recipient: Recipient, lookups?: HostLookups): Promise<InboxVerdict> {
    let verdict: InboxVerdict = "allowed";
    for (const inbox of [recipient.inboxId, recipient.endpoints?.sharedInbox]) {
      const found = inbox ? await inboxAllowed(inbox, lookups) : "allowed";
      if (found === "allowed") continue;
      log.warn(
        { actor: recipient.id?.href, inbox: `${inbox?.origin}${inbox?.pathname}` },
        found === "refused"
          ? "a Fediverse inbox on a private address was refused"
          : "a Fediverse inbox's server was not found; it is tried again at the next send",
      );
      if (verdict !== "refused") verdict = found;
    }
    return verdict;
  }
  const webmentions = createWebmentions({
    store,
    siteUrl,
    remoteFetch,
    allowPrivateAddresses: options.allowPrivateAddresses,
    items: () => items(),
    moderation: () => options.moderation,
    log,
    changed: (path) => options.changed?.(path),
    blocked: senders.names,
    ...(options.mentionBreaksRules ? { breaksRules: options.mentionBreaksRules } : {}),
  });
  const stopping = new AbortController();
  /** Resolves once the webmentions for what changed are sent. */
  let sending: Promise<unknown> = Promise.resolve();
  /** Resolves once the queue's workers have finished the message in hand. */
  let queueStopped: Promise<unknown> = Promise.resolve();
  let siteItems: Map<string, SiteItem> | undefined;
  const items = () => {
    siteItems ??= new Map(readSiteItems(options.clientRoot).map((item) => [item.path, item]));
    return siteItems;
  };

  // What another process queued (the command line's erasure) loads Fedify, which sends it;
  // checked once a minute until Fedify has loaded, a failed load tried again at the next.
  const polling = setInterval(() => {
    void queue
      .getDepth()
      .then(async ({ queued }) => {
        if (queued > 0) await federation();
      })
      .catch((error: unknown) =>
        log.warn({ err: error }, "the Fediverse queue waits: tried again in a minute"),
      );
  }, 60_000);
  polling.unref();

  /** The inbox's, once Fedify is loaded (inbox.ts). */
  let forgetAccount: (actorId: string) => Promise<void> = async () => {};
  const federation = onFirstUse(async (): Promise<Federation<void>> => {
    const [{ createSiteFederation }, { listenToInbox }, { sendFedifyLogsTo }] = await Promise.all([
      options.importFederation?.() ?? import("./federation.ts"),
      import("./inbox.ts"),
      import("./logging.ts"),
    ]);
    sendFedifyLogsTo(log);
    const made = await createSiteFederation({
      ...options,
      ...shared,
      kv,
      items,
      ownerNote: replies.ownerNote,
    });
    ({ forgetAccount } = listenToInbox(made, {
      ...options.inbox,
      ...shared,
      answersErased: replies.takeBack,
      failed: queue.failed,
      kv,
    }));
    if (!stopping.signal.aborted) {
      queueStopped = made
        .startQueue(undefined, { signal: stopping.signal })
        .catch((error: unknown) => log.error({ err: error }, "the Fediverse queue stopped"));
    }
    clearInterval(polling);
    return made;
  });

  /** Whether an inbox post's signature holds, checked before Fedify reads it (inbox-signature.ts). */
  const signatureCheck = onFirstUse(async () =>
    (await import("./inbox-signature.ts")).createSignatureCheck(kv, remoteFetch),
  );

  /** Fedify loaded, with what sends through it (publishing.ts). */
  const publishing = async () => ({
    ...(await import("./publishing.ts")),
    sender: { federation: await federation(), repository, siteUrl, log, deliverable },
  });

  /** What the Fediverse's parts share; each takes what its type names. */
  const shared = {
    repository,
    comments: options.inbox.comments,
    bus: options.bus,
    queue,
    remoteFetch,
    deliverable,
    publishing,
    federation,
    siteUrl,
    log,
    changed: (path: string) => options.changed?.(path),
    onSite: (path: string) => items().has(path),
    forgetCached: (actorId: string) => kv.forgetAbout(actorId),
  };
  const replies = createOwnerReplies(shared);
  const actions = fediverseActions({
    ...shared,
    webmentions,
    answersErased: replies.takeBack,
    blocksChanged: senders.read,
    followerRemoved: (follower) => {
      void publishing()
        .then(({ rejectFollow, sender }) => rejectFollow(sender, follower))
        .catch((error: unknown) =>
          log.warn({ err: error }, "a removed follower's server could not be told"),
        );
    },
  });

  /**
   * What changed since the last start goes to followers; with nobody
   * following, it is only recorded, without loading Fedify.
   */
  async function publish() {
    const current = items();
    const sent = await repository.published();
    const fresh = [...current.values()].filter((item) => {
      const before = sent.get(item.path);
      return !before || before.deleted || before.digest !== item.digest;
    });
    const gone = [...sent].filter(
      ([path, before]) => !before.deleted && isItemPath(path) && !current.has(path),
    );
    // The owner's answers under an item off the site leave the Fediverse with it, sent to
    // their writers whoever follows; looked for at each start, so one missed goes at the next.
    const removed = [...sent.keys()].filter((path) => isItemPath(path) && !current.has(path));
    await replies.withdraw(await repository.ownerCommentsUnder(removed));
    if (fresh.length + gone.length === 0) return;
    // Pages the new and changed items link to hear of it, whoever follows.
    sending = (async () => {
      for (const item of fresh) {
        if (stopping.signal.aborted) return;
        await webmentions.send(item);
      }
    })().catch((error: unknown) => log.warn({ err: error }, "webmentions could not be sent"));
    const out = (await repository.followerCount()) > 0 ? await publishing() : undefined;
    const counts = { created: 0, updated: 0, deleted: 0 };
    // Each is recorded before it is sent, in a way only one instance can win.
    for (const item of fresh) {
      if (!(await repository.recordPublished(item.path, item.digest)) || !out) continue;
      counts[await out.sendItem(out.sender, item, sent.get(item.path))] += 1;
    }
    for (const [path, before] of gone) {
      if (!(await repository.recordPublished(path, before.digest, true)) || !out) continue;
      await out.sendDeletion(out.sender, path);
      counts.deleted += 1;
    }
    if (counts.created + counts.updated + counts.deleted > 0) {
      log.info(counts, "items sent to the site's Fediverse followers");
    }
  }

  /** What other servers keep of the account, beside its keys: a change is announced. */
  const accountFacts = {
    siteUrl,
    handle: options.handle,
    profile: options.profile,
  };

  /**
   * The account goes to followers' servers as an Update when what they keep
   * of it changed since they were last sent it: above all its public keys,
   * made anew after the owner rotated them or after a move that left the old
   * ones behind, which those servers would otherwise go on checking
   * signatures against. With nobody following, nothing is sent.
   */
  async function announceAccount() {
    if ((await repository.followerCount()) === 0) return;
    const digest = await repository.accountDigest(accountFacts);
    if (digest !== null && (await repository.published()).get(accountPath)?.digest === digest) {
      return;
    }
    const { sendAccountUpdate, sender } = await publishing();
    await sendAccountUpdate(sender, () => repository.accountDigest(accountFacts));
  }

  let timer: NodeJS.Timeout | undefined;
  return {
    repository,
    webmentions,
    /** What an item's own page shows of the open web: likes and boosts, and mentions. */
    async openWeb(itemPath: string) {
      const [{ likes, boosts }, mentions] = await Promise.all([
        repository.reactionCounts(itemPath),
        webmentions.publishedFor(itemPath),
      ]);
      return { fediverse: likes + boosts, mentions };
    },
    actions,
    /** After the server listens: sends what changed, and resumes deliveries left queued. */
    start() {
      timer = setTimeout(() => {
        const work = async () => {
          // Deliveries left queued first: once an item is recorded, the start has looked.
          if ((await queue.getDepth()).queued > 0) await federation();
          await publish();
          await announceAccount();
          await webmentions.wake();
          await kv.prune();
        };
        work().catch((error: unknown) =>
          log.error({ err: error }, "the site's changes could not be sent to the Fediverse"),
        );
      }, 0);
      timer.unref();
    },
    /**
     * Stops taking messages and waits a few seconds for those in hand; one
     * still in hand then is taken again by the next start, when its lease ends.
     */
    async stop() {
      clearTimeout(timer);
      clearInterval(polling);
      replies.stop();
      senders.stop();
      stopping.abort();
      let waited: NodeJS.Timeout | undefined;
      await Promise.race([
        Promise.all([queueStopped, sending]),
        new Promise((resolve) => {
          waited = setTimeout(resolve, 5000);
        }),
      ]);
      clearTimeout(waited);
    },
    routes: async (app: Parameters<typeof fediverseRoutes>[0]) => {
      await webmentions.routes(app);
      await fediverseRoutes(app, {
        federation,
        signed: async (request, options) => (await signatureCheck())(request, options),
        accountGone: async (actorId) => {
          await federation();
          await forgetAccount(actorId);
        },
        blocked: senders.names,
        repository,
        items,
        siteUrl,
        picture: options.profile.picture,
        notePage: async (commentId) => (await replies.ownerNote(commentId))?.page ?? null,
      });
    },
  };
}

export type Fediverse = ReturnType<typeof createFediverse>;
