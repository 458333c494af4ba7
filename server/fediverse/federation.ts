import {
  type CircuitBreakerOptions,
  type Context,
  createFederation,
  exportJwk,
  type Federation,
  generateCryptoKeyPair,
  importJwk,
  type KvStore,
  type RetryPolicy,
  SendActivityError,
} from "@fedify/fedify";
import { LanguageString } from "@fedify/fedify/runtime";
import {
  Article,
  Create,
  Endpoints,
  Hashtag,
  Image,
  Mention,
  Note,
  Person,
  PropertyValue,
  PUBLIC_COLLECTION,
  type Recipient,
} from "@fedify/fedify/vocab";
import { Temporal } from "@js-temporal/polyfill";
import { hashtagsOf } from "../../content/sections.ts";
import { rowIdParamSchema } from "../../contract/api.ts";
import { escapeHtml } from "../../contract/html.ts";
import type { Store } from "../db/store.ts";
import type { HostLookups, InboxVerdict, RemoteFetch } from "../lib/safe-fetch.ts";
import { nowIso } from "../lib/time.ts";
import { withTablesAsParagraphs } from "./article-html.ts";
import { serverNamesOf } from "./blocks.ts";
import { nameOf } from "./deadlines.ts";
import { cachedLoaders, documentLoader } from "./document-loader.ts";
import { removeGoneFollowers } from "./gone-inboxes.ts";
import type { SiteQueue } from "./message-queue.ts";
import type { FediverseRepository } from "./repository.ts";
import type { SiteItem } from "./site-items.ts";

/*
 * The site as one ActivityPub actor, through Fedify
 * (docs/decisions/046-the-site-on-the-fediverse.md): WebFinger and NodeInfo, the actor with its
 * keys, its items as Articles, the owner's replies as Notes, and the followers collection Fedify
 * delivers to. The inbox's listeners are in inbox.ts.
 */

/**
 * An instant as Fedify takes it: its types name the global Temporal (the esnext.temporal
 * library), which Node 24 does not have yet; at run time it reads the polyfill's, its own.
 */
export const instant = (iso: string | Date = new Date()): globalThis.Temporal.Instant =>
  Temporal.Instant.from(new Date(iso).toISOString()) as unknown as globalThis.Temporal.Instant;

/** The site actor's identifier in its URLs: fixed, so a new handle keeps its followers. */
export const siteActor = "site";

export const paths = {
  actor: "/fediverse/actors/{identifier}",
  inbox: "/fediverse/actors/{identifier}/inbox",
  sharedInbox: "/fediverse/inbox",
  followers: "/fediverse/actors/{identifier}/followers",
  outbox: "/fediverse/actors/{identifier}/outbox",
  article: "/fediverse/items/{section}/{slug}",
  note: "/fediverse/notes/{id}",
} as const;

export type Profile = {
  name: string;
  summary: string | null;
  links: { label: string; url: string }[];
  /** The owner's picture file, served at /fediverse/picture as the actor's icon, if there is one. */
  picture: { file: string; type: string } | null;
};

/**
 * Whether every inbox an account names may be posted to now (safe-fetch.ts,
 * `createInboxCheck`): each delivery is checked just before it is handed to
 * Fedify, which checks nothing itself. `lookups`: one send's, shared.
 */
export type Deliverable = (recipient: Recipient, lookups?: HostLookups) => Promise<InboxVerdict>;

type FederationDeps = {
  store: Store;
  kv: KvStore;
  queue: SiteQueue;
  repository: FediverseRepository;
  siteUrl: string;
  handle: string;
  profile: Profile;
  /** The items the site publishes now, by path. */
  items: () => ReadonlyMap<string, SiteItem>;
  /** The owner's reply, as a Note: its comment's HTML, place on its page and times, the Note it answers and whom. */
  ownerNote: (commentId: number) => Promise<{
    html: string;
    page: string;
    published: string;
    updated: string;
    inReplyTo: string;
    to: string;
  } | null>;
  /** The guarded fetch (safe-fetch.ts) every remote document is read through. */
  remoteFetch: RemoteFetch;
  deliverable: Deliverable;
  softwareVersion: string;
  /** Fedify's circuit breaker's (its own defaults when absent: tests make it quick). */
  circuitBreaker?: CircuitBreakerOptions;
};

const algorithms = ["RSASSA-PKCS1-v1_5", "Ed25519"] as const;

/** The items a page of the outbox holds (Mastodon's own hold 20 posts, far shorter). */
const outboxPage = 10;

/** The actor's key pairs, made on first use and kept in the database; every instance shares them. */
export async function keyPairsOf(store: Store): Promise<CryptoKeyPair[]> {
  const { db } = store;
  const pairs: CryptoKeyPair[] = [];
  for (const algorithm of algorithms) {
    const stored = () =>
      db.selectFrom("fediverse_keys").selectAll().where("algorithm", "=", algorithm);
    let row = await stored().executeTakeFirst();
    if (!row) {
      const made = await generateCryptoKeyPair(algorithm);
      await db
        .insertInto("fediverse_keys")
        .values({
          algorithm,
          private_jwk: JSON.stringify(await exportJwk(made.privateKey)),
          public_jwk: JSON.stringify(await exportJwk(made.publicKey)),
          created_at: nowIso(),
        })
        .onConflict((conflict) => conflict.column("algorithm").doNothing())
        .execute();
      // Another instance may have made its pair first: that one is everyone's.
      row = await stored().executeTakeFirstOrThrow();
    }
    pairs.push({
      privateKey: await importJwk(JSON.parse(row.private_jwk), "private"),
      publicKey: await importJwk(JSON.parse(row.public_jwk), "public"),
    });
  }
  return pairs;
}

/**
 * A text as `content` for every server and, in the pages' language (`<html lang="en">`), as
 * `contentMap`, where Mastodon reads a post's language alone: without it a post has none, so
 * its readers' language filters and translation pass it by.
 */
const inLanguage = (text: string) => [text, new LanguageString(text, "en")];

/** Public, and to the site's followers. */
export const everyone = (ctx: Context<void>) => ({
  to: PUBLIC_COLLECTION,
  cc: ctx.getFollowersUri(siteActor),
});

/**
 * An item as the Fediverse sees it, filed under its section's hashtags; `posted`: the time its
 * Create goes, its `published` then, and never edited (publishing.ts, `sendItem`).
 */
export function articleOf(
  ctx: Context<void>,
  item: SiteItem,
  siteUrl: string,
  posted?: globalThis.Temporal.Instant,
): Article {
  const page = new URL(item.path, siteUrl);
  return new Article({
    id: ctx.getObjectUri(Article, { section: item.section, slug: item.slug }),
    attribution: ctx.getActorUri(siteActor),
    ...everyone(ctx),
    url: page,
    // Mastodon shows an Article's title and summary, not its content: its language from the title.
    names: inLanguage(item.title),
    summary: item.summary ? escapeHtml(item.summary) : null,
    content: `${withTablesAsParagraphs(item.html)}<p><a href="${escapeHtml(page.href)}">${escapeHtml(page.href)}</a></p>`,
    published: posted ?? instant(item.published),
    updated: posted ? null : instant(item.updated),
    image: item.image
      ? new Image({
          url: new URL(item.image, siteUrl),
          mediaType: "image/png",
          name: item.imageAlt,
        })
      : null,
    tags: hashtagsOf(item.section).map(
      (tag) => new Hashtag({ name: `#${tag}`, href: new URL(`/${item.section}`, siteUrl) }),
    ),
  });
}

export async function createSiteFederation(deps: FederationDeps): Promise<Federation<void>> {
  const { repository, siteUrl, handle, profile } = deps;
  const { documentLoader: cached, contextLoader } = cachedLoaders(deps.remoteFetch, deps.kv);
  // The queue's waits, as the durations Fedify takes (message-queue.ts, `retryAfterMs`).
  const retryPolicy: RetryPolicy = (context) => {
    const ms = deps.queue.retryAfterMs(context);
    return ms === null
      ? null
      : (Temporal.Duration.from({ milliseconds: ms }) as unknown as globalThis.Temporal.Duration);
  };
  const federation = createFederation<void>({
    kv: deps.kv,
    queue: deps.queue,
    origin: siteUrl,
    documentLoaderFactory: () => cached,
    contextLoaderFactory: () => contextLoader,
    authenticatedDocumentLoaderFactory: (identity) =>
      documentLoader(deps.remoteFetch, { signedBy: identity }),
    // The queue is started by the composition root, after the routes exist.
    manuallyStartQueue: true,
    ...(deps.circuitBreaker ? { circuitBreaker: deps.circuitBreaker } : {}),
    outboxRetryPolicy: retryPolicy,
    inboxRetryPolicy: retryPolicy,
    // Each failed try, for the queue to record should Fedify give the delivery up.
    onOutboxError: (error) =>
      deps.queue.failed(
        error instanceof SendActivityError
          ? `the inbox answered ${error.statusCode}`
          : nameOf(error),
      ),
  });
  let keys: Promise<CryptoKeyPair[]> | undefined;

  federation
    .setActorDispatcher(paths.actor, async (ctx, identifier) => {
      if (identifier !== siteActor) return null;
      const pairs = await ctx.getActorKeyPairs(identifier);
      return new Person({
        id: ctx.getActorUri(identifier),
        preferredUsername: handle,
        name: profile.name,
        summary: profile.summary ? `<p>${escapeHtml(profile.summary)}</p>` : null,
        url: new URL("/about", siteUrl),
        icon: profile.picture
          ? new Image({
              url: new URL("/fediverse/picture", siteUrl),
              mediaType: profile.picture.type,
            })
          : null,
        image: new Image({ url: new URL("/og-image.png", siteUrl), mediaType: "image/png" }),
        inbox: ctx.getInboxUri(identifier),
        outbox: ctx.getOutboxUri(identifier),
        endpoints: new Endpoints({ sharedInbox: ctx.getInboxUri() }),
        followers: ctx.getFollowersUri(identifier),
        publicKey: pairs[0]?.cryptographicKey ?? null,
        assertionMethods: pairs.map((pair) => pair.multikey),
        manuallyApprovesFollowers: false,
        discoverable: true,
        indexable: true,
        attachments: profile.links.map(
          (link) =>
            new PropertyValue({
              name: link.label,
              value: `<a href="${escapeHtml(link.url)}" rel="me">${escapeHtml(link.url)}</a>`,
            }),
        ),
      });
    })
    .setKeyPairsDispatcher(async (_ctx, identifier) => {
      if (identifier !== siteActor) return [];
      keys ??= keyPairsOf(deps.store);
      return keys;
    })
    .mapHandle((_ctx, username) =>
      username.toLowerCase() === handle.toLowerCase() ? siteActor : null,
    );

  // Who follows the site is theirs to tell: a request for the collection is
  // given their number alone (Mastodon shows it as the account's followers,
  // and keeps the list hidden when there is no first page), and Fedify reads
  // the list itself to deliver, as it sends. A follower whose inbox is refused
  // (kept before Follows were checked) follows no more; one whose server's
  // name is not found now is only skipped.
  federation
    .setFollowersDispatcher(paths.followers, async (ctx, identifier) => {
      if (identifier !== siteActor) return null;
      // A request for it, a page or a server's part of it reads nothing and looks no
      // server up (a send's context is the site's).
      const asked = "request" in ctx && ctx.request instanceof Request ? ctx.request.url : "";
      if (URL.parse(asked)?.pathname === ctx.getFollowersUri(siteActor).pathname) {
        return { items: [] };
      }
      // A follower blocked by other means than the owner's Block (an import's, a race with
      // a Follow) follows no more, and is sent nothing.
      const blocks = new Set((await repository.blocks()).map((block) => block.target));
      const isBlocked = (actorId: string) =>
        blocks.has(actorId) || serverNamesOf(actorId).some((name) => blocks.has(name));
      const all = await repository.followers();
      for (const { actorId, followId } of all.filter((one) => isBlocked(one.actorId))) {
        await repository.unfollow(actorId, followId);
      }
      const stored = all.filter((one) => !isBlocked(one.actorId));
      const followers = stored.map((follower) => ({
        id: new URL(follower.actorId),
        inboxId: new URL(follower.inbox),
        endpoints: follower.sharedInbox ? { sharedInbox: new URL(follower.sharedInbox) } : null,
      }));
      const lookups: HostLookups = new Map();
      const verdicts = await Promise.all(followers.map((one) => deps.deliverable(one, lookups)));
      for (const [index, { actorId, followId }] of stored.entries()) {
        if (verdicts[index] === "refused") await repository.unfollow(actorId, followId);
      }
      return { items: followers.filter((_, index) => verdicts[index] === "allowed") };
    })
    .setCounter(async () => repository.followerCount());

  // A delivery Fedify gives up for good: its inbox answered 404 or 410, or its
  // server, held by Fedify's circuit breaker for failing, still failed when
  // the breaker stopped holding it (seven days). Recorded for Health by the
  // queue (message-queue.ts, `failed`); an inbox gone (410) takes the accounts
  // gone with it off the followers (gone-inboxes.ts).
  federation.setOutboxPermanentFailureHandler(async (_ctx, failure) => {
    if (failure.reason === "circuit-breaker-ttl") {
      return deps.queue.failed("its server failed every try while the delivery was held");
    }
    if (failure.statusCode !== 410) return;
    deps.queue.failed(await removeGoneFollowers(failure, deps));
  });

  // Mastodon counts an account's posts by its outbox; ours are the items, newest first, in
  // pages: the collection holds their number alone, and a page `outboxPage` items, each
  // page's work bounded (an item costs some 8 ms) and the whole far under the 1 MB
  // Mastodon reads of a document, however many items the site has.
  federation
    .setOutboxDispatcher(paths.outbox, (ctx, identifier, cursor) => {
      if (identifier !== siteActor || !/^\d{1,6}$/.test(cursor ?? "")) return null;
      const from = Number(cursor);
      const newestFirst = [...deps.items().values()].sort((a, b) =>
        b.published.localeCompare(a.published),
      );
      if (from % outboxPage !== 0 || (from > 0 && from >= newestFirst.length)) return null;
      const next = from + outboxPage;
      return {
        items: newestFirst.slice(from, next).map((item) => {
          const article = articleOf(ctx, item, siteUrl);
          return new Create({
            id: new URL("#create", article.id ?? ctx.getActorUri(siteActor)),
            actor: ctx.getActorUri(siteActor),
            ...everyone(ctx),
            object: article,
            published: instant(item.published),
          });
        }),
        nextCursor: next < newestFirst.length ? String(next) : null,
        prevCursor: from > 0 ? String(from - outboxPage) : null,
      };
    })
    .setFirstCursor(() => "0")
    .setCounter(() => deps.items().size);

  federation.setObjectDispatcher(Article, paths.article, (ctx, values) => {
    const item = deps.items().get(`/${values.section}/${values.slug}`);
    return item ? articleOf(ctx, item, siteUrl) : null;
  });

  federation.setObjectDispatcher(Note, paths.note, async (ctx, values) => {
    const id = rowIdParamSchema.safeParse(values.id);
    const note = id.success ? await deps.ownerNote(id.data) : null;
    if (!note) return null;
    return new Note({
      id: ctx.getObjectUri(Note, values),
      attribution: ctx.getActorUri(siteActor),
      to: PUBLIC_COLLECTION,
      cc: new URL(note.to),
      // Mastodon notifies of a reply only by its Mention: an account it is addressed to
      // (cc) alone is a silent mention, which reaches no one's notifications.
      tags: [new Mention({ href: new URL(note.to) })],
      replyTarget: new URL(note.inReplyTo),
      // Where Mastodon's link to it leads a reader: the comment on its page, not this JSON.
      url: new URL(note.page, siteUrl),
      contents: inLanguage(note.html),
      published: instant(note.published),
      updated: note.updated === note.published ? null : instant(note.updated),
    });
  });

  federation.setNodeInfoDispatcher("/nodeinfo/2.1", async () => ({
    software: {
      name: "engage-with-engineer",
      version: deps.softwareVersion,
      homepage: new URL(siteUrl),
    },
    protocols: ["activitypub"],
    services: { inbound: [], outbound: ["atom1.0", "rss2.0"] },
    openRegistrations: false,
    usage: {
      users: { total: 1, activeHalfyear: 1, activeMonth: 1 },
      localPosts: deps.items().size,
      localComments: 0,
    },
    metadata: {},
  }));

  return federation;
}
