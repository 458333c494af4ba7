import { Readable } from "node:stream";
import type { Federation } from "@fedify/fedify";
import type { DocumentLoader } from "@fedify/fedify/runtime";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { rowIdParamSchema } from "../../contract/api.ts";
import { countByAddress } from "../lib/address-limit.ts";
import { networkOf } from "../lib/address-scope.ts";
import { perMinute } from "../lib/per-minute.ts";
import { headersOf } from "../lib/safe-fetch.ts";
import {
  deletedAccount,
  idElsewhere,
  jsonIn,
  tooHeavyJsonLd,
  tooLongAddress,
  wantsActivityPub,
} from "./activity-json.ts";
import type { CheckOptions, SignatureCheck } from "./inbox-signature.ts";
import { servePictures } from "./pictures.ts";
import type { FediverseRepository } from "./repository.ts";
import { notePath } from "./sent-records.ts";
import type { SiteItem } from "./site-items.ts";

/*
 * Fedify in front of Fastify's routes, for the few requests that are its
 * own: WebFinger, NodeInfo, everything under /fediverse/, and a page asked
 * for as ActivityPub JSON (an item's page gives its Article, /about and /
 * the site's actor). The decision is a few string comparisons, made before
 * anything else, so an ordinary read of a page never waits on it; and the
 * built pages' fast path (server/web/fast-pages.ts) leaves ActivityPub
 * requests to Fastify (`wantsActivityPub`). Fedify answers with the body
 * read straight from the request (its digest is checked against the raw
 * bytes); what it does not know (404) or cannot give in the format asked
 * (406) goes on to the site's own routes, so a browser gets the HTML. A post
 * reaches Fedify only once weighed (activity-json.ts) and its HTTP signature
 * checked (inbox-signature.ts): Fedify reads a post as JSON-LD before it
 * checks the signature itself. A post to an inbox whose signature names a
 * blocked account's or server's key is dropped once it has passed every check
 * that needs no key (blocks.ts), and so is one whose key, once checked, a
 * blocked account owns.
 */

/** Bytes an inbox post may carry. */
const inboxBytesMax = 256 * 1024;
/**
 * The counts by address, each also by network (an IPv6 /48, ten times the
 * address's: `countByAddress`), in the site's one registration of rate limits.
 */
const limits = {
  /** Inbox posts one address may make a minute. */
  posts: 300,
  /**
   * Inbox posts of one address refused (401: unsigned, or a signature that does
   * not hold; 400: one that cannot be read) before the rest of its minute is
   * refused unread. A refusal costs little CPU since signatures are checked
   * first, but a post may name a key the site has not seen, each one fetched:
   * ten a minute from one address at most, a hundred from its network, which
   * ten refusing subscribers of a hoster's /48 would fill.
   */
  refusals: 10,
  /**
   * Reads of the Fediverse's addresses one address may make a minute. Made for
   * each request, unlike the site's pages: an outbox page some 25 ms of CPU, the
   * actor 8. A server reads each once and keeps it.
   */
  reads: 300,
};
/**
 * Characters a signature's key id may have: an address (Mastodon's are under a
 * hundred). Kept in memory a few minutes, for its refetch and its posts, so
 * one of 16 kB (a header's limit) would make each entry costly.
 */
const keyIdMax = 2000;
/**
 * Inbox posts one key may make a minute, its signature checked, whatever its
 * addresses. Mastodon, Misskey and the rest sign each delivery with its
 * account's own key, a large server's shared inbox included, so this is one
 * account's: a person's replies, likes, boosts and follows come a few a
 * minute at most, and a server catching up after the site was down is
 * answered 429, which Mastodon retries. A fifth of an address's: one account
 * posting from many addresses costs no more than 60 posts at the values cap.
 */
const inboxPostsPerKeyPerMinute = 60;

/**
 * The key ids a post's HTTP signature names, as claimed, before anything is
 * checked: draft-cavage's `keyId` in `Signature`, RFC 9421's `keyid` in
 * `Signature-Input`. Read loosely (any such parameter in either header), for
 * a refusal only. Here, not in inbox-signature.ts: that one brings Fedify,
 * which the server loads on first use only.
 */
function claimedKeyIds(headers: Record<string, string | string[] | undefined>): string[] {
  const text = [headers.signature, headers["signature-input"]].flat().join(",");
  return [...text.matchAll(/keyid="((?:[^"\\]|\\.)*)"/gi)].map(([, id = ""]) =>
    id.replace(/\\(.)/g, "$1"),
  );
}

/**
 * Fedify's answers for "none of the Fediverse's" and "not for this Accept",
 * known by identity. Made at the first such request: a Response made as the
 * module loads would load Node's fetch with every start of the server.
 */
let sentinels: { fallThrough: Response; notAcceptable: Response } | undefined;
const fallThroughAnswers = () =>
  (sentinels ??= {
    fallThrough: new Response(null, { status: 404 }),
    notAcceptable: new Response(null, { status: 406 }),
  });

/** A request body read as it comes, refused past `max` bytes. */
function limitedBody(request: FastifyRequest, max: number): ReadableStream<Uint8Array> {
  let seen = 0;
  const source = Readable.toWeb(request.raw) as ReadableStream<Uint8Array>;
  return source.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        seen += chunk.byteLength;
        if (seen > max) controller.error(new Error("the body is too large"));
        else controller.enqueue(chunk);
      },
    }),
  );
}

export async function fediverseRoutes(
  app: FastifyInstance,
  {
    federation,
    signed,
    accountGone,
    blocked,
    repository,
    items,
    siteUrl,
    picture,
    notePage,
  }: {
    /** Fedify, loaded on first use. */
    federation: () => Promise<Federation<void>>;
    /** Who signed a post, if its HTTP signature holds (inbox-signature.ts). */
    signed: (request: Request, options?: CheckOptions) => Promise<SignatureCheck>;
    /** Forgets an account deleted on its server (inbox.ts, `forgetAccount`). */
    accountGone: (actorId: string) => Promise<void>;
    /** Whether any of these addresses (key ids, a key's owner) names a blocked account or server (blocks.ts). */
    blocked: (addresses: readonly (string | null)[]) => Promise<boolean>;
    repository: FediverseRepository;
    items: () => ReadonlyMap<string, SiteItem>;
    siteUrl: string;
    /** The owner's picture file, the actor's icon, when the profile has one. */
    picture: { file: string; type: string } | null;
    /** Where the owner's reply sent as a Note is on its page, for a browser at its address. */
    notePage: (commentId: number) => Promise<string | null>;
  },
) {
  const actorPath = "/fediverse/actors/site";
  const count = (name: keyof typeof limits) =>
    countByAddress(app, { name: `fediverse ${name}`, max: limits[name], timeWindow: 60_000 });
  const [posts, refusals, reads] = [count("posts"), count("refusals"), count("reads")];
  /** Inbox posts signed with each key this minute. */
  const keyPosts = perMinute(inboxPostsPerKeyPerMinute);
  const inboxes = new Set(["/fediverse/inbox", `${actorPath}/inbox`]);

  /**
   * A blocked sender's post, dropped unread: answered as Fedify answers one it
   * queues, as it answered a blocked sender's before its listeners dropped it,
   * so the sender learns nothing of the block.
   */
  const dropped = (reply: FastifyReply) =>
    reply.code(202).type("text/plain; charset=utf-8").send("Activity is enqueued.");
  const tooMany = (reply: FastifyReply, wait = 60, what = "activities") =>
    reply
      .code(429)
      .header("retry-after", String(wait))
      .send({ error: { code: "rate_limited", message: `Too many ${what}; try later.` } });

  /** The address Fedify is to answer for this request, or null when it is not Fedify's. */
  function federationPathOf(request: FastifyRequest): string | null {
    const url = request.url;
    const query = url.indexOf("?");
    const path = query === -1 ? url : url.slice(0, query);
    if (
      path.startsWith("/fediverse/") ||
      path === "/.well-known/webfinger" ||
      path === "/.well-known/nodeinfo" ||
      path === "/nodeinfo/2.1"
    ) {
      return path.startsWith("/fediverse/avatars/") || path === "/fediverse/picture" ? null : url;
    }
    if (request.method !== "GET" && request.method !== "HEAD") return null;
    if (!wantsActivityPub(request.headers.accept)) return null;
    const page = path.replace(/\/$/, "");
    if (page === "" || page === "/about") return actorPath;
    if (items().has(page)) return `/fediverse/items${page}`;
    return null;
  }

  /** The comment whose Note `url` is the address of, or null. */
  function noteOf(url: URL): number | null {
    const id = rowIdParamSchema.safeParse(/^\/fediverse\/notes\/(\d+)$/.exec(url.pathname)?.[1]);
    return id.success ? id.data : null;
  }

  /**
   * What answers for an Article or a Note of ours that is gone (an item off
   * the site, the owner's reply deleted, or its writer erased), so other
   * servers drop their copies: its address, its former type and when it
   * went, from a record that keeps nothing else. Null for one that never was.
   */
  async function tombstoneOf(url: URL, item: string | undefined) {
    const note = noteOf(url);
    const [path, formerType] = item
      ? [item, "Article"]
      : note !== null
        ? [notePath(note), "Note"]
        : [];
    const deleted = path ? (await repository.sent(path))?.deletedAt : null;
    if (!deleted) return null;
    const id = `${url.origin}${url.pathname}`;
    const context = "https://www.w3.org/ns/activitystreams";
    return { "@context": context, id, type: "Tombstone", formerType, deleted };
  }

  /**
   * How Fedify reads the keys of a post to an actor's own inbox: signed as that
   * actor, as a server that answers only signed requests asks. None for the shared inbox.
   */
  async function keyLoaderOf(url: URL): Promise<DocumentLoader | undefined> {
    const identifier = /^\/fediverse\/actors\/([^/]+)\/inbox$/.exec(url.pathname)?.[1];
    if (identifier === undefined) return undefined;
    return (await federation()).createContext(url).getDocumentLoader({ identifier });
  }

  async function answer(request: FastifyRequest, reply: FastifyReply, target: string) {
    const url = new URL(target, siteUrl);
    const item = /^\/fediverse\/items(\/[a-z0-9-]+\/[a-z0-9-]+)$/.exec(url.pathname)?.[1];
    const toInbox = request.method === "POST" && inboxes.has(url.pathname);
    const readRefusal =
      request.method === "GET" || request.method === "HEAD" ? await reads(request) : null;
    if (readRefusal) return tooMany(reply, readRefusal.retryAfter, "requests");
    if (request.method === "POST") {
      const length = Number(request.headers["content-length"] ?? 0);
      if (length > inboxBytesMax) {
        return reply
          .code(413)
          .send({ error: { code: "payload_too_large", message: "The activity is too large." } });
      }
      const refusal = (await posts(request)) ?? (await refusals(request, { increment: false }));
      if (refusal) return tooMany(reply, refusal.retryAfter);
      // A key's id is kept a few minutes in memory (its refetch, its posts): an address's length.
      if (toInbox && claimedKeyIds(request.headers).some((id) => id.length > keyIdMax)) {
        await refusals(request);
        return reply.code(401).send({
          error: { code: "unauthorized", message: "The signature's key id is too long." },
        });
      }
    }
    const headers = headersOf(request.headers);
    let body = {};
    /** The post's JSON, read once for the checks before Fedify's. */
    let document: unknown;
    if (request.method === "POST" || request.method === "PUT") {
      // Read whole (256 kB at most) and weighed before Fedify processes any of it, signed or not.
      const bytes = await new Response(limitedBody(request, inboxBytesMax))
        .arrayBuffer()
        .catch(() => null);
      document = bytes === null ? undefined : jsonIn(Buffer.from(bytes).toString());
      const tooLong = bytes !== null && tooLongAddress(document);
      if (tooLong)
        request.log.info("a Fediverse post with an address too long to keep was refused");
      if (bytes === null || tooHeavyJsonLd(document) || tooLong) {
        return reply.code(400).send({
          error: { code: "validation_failed", message: "The activity could not be read." },
        });
      }
      body = { body: bytes };
    }
    const { fallThrough, notAcceptable } = fallThroughAnswers();
    const asked = () => new Request(url, { method: request.method, headers, ...body });
    let response: Response;
    /** Whether a post's signature was checked: false when the check threw. */
    let checked = false;
    try {
      const signer =
        request.method === "POST" &&
        (await signed(asked(), {
          loader: await keyLoaderOf(url),
          // Asked as its key is about to be read: what it is answered before that, anyone is.
          blocked: toInbox ? (keyId) => blocked([keyId]) : undefined,
          network: networkOf(request.ip),
        }));
      checked = true;
      if (signer === "blocked") return dropped(reply);
      if (signer === "busy") return tooMany(reply);
      // An account's Delete once its key has left the cache: its server answers that the
      // key is gone (410), which says more than the signature could. Anything else so signed
      // is refused as unsigned.
      const gone = typeof signer === "object" && signer !== null && "gone" in signer;
      const account = gone && toInbox ? deletedAccount(document, signer.gone) : null;
      if (account) {
        await accountGone(account);
        return reply.code(202).send();
      }
      if (signer === null || gone) {
        await refusals(request);
        return reply.code(401).send({
          error: { code: "unauthorized", message: "The activity's signature does not hold." },
        });
      }
      if (signer && toInbox) {
        if (await blocked([signer.ownerId])) return dropped(reply);
        if (keyPosts.over(signer.keyId)) return tooMany(reply);
        if (idElsewhere(document, signer.ownerId ?? signer.keyId)) return dropped(reply);
      }
      response = await (await federation()).fetch(asked(), {
        contextData: undefined,
        onNotFound: () => fallThrough,
        onNotAcceptable: () => notAcceptable,
      });
    } catch (error) {
      request.log.info({ err: error }, "a Fediverse request could not be read");
      // A post whose signature could not even be checked (a signature that is no base64,
      // read once its key was fetched) is refused as one that does not hold.
      if (request.method === "POST" && !checked) await refusals(request);
      return reply
        .code(400)
        .send({ error: { code: "validation_failed", message: "The request could not be read." } });
    }
    if (response === fallThrough && request.method === "GET") {
      const gone = wantsActivityPub(request.headers.accept) ? await tombstoneOf(url, item) : null;
      return gone ? reply.code(410).type("application/activity+json").send(gone) : false;
    }
    if (response === fallThrough && request.method !== "POST") return false;
    if (response === notAcceptable) {
      // A browser at the actor's, an Article's or a Note's address: the page it stands for.
      if (url.pathname === actorPath) return reply.redirect("/about", 302);
      if (item) return reply.redirect(item, 302);
      const note = noteOf(url);
      const page = note === null ? null : await notePage(note);
      return page ? reply.redirect(page, 302) : false;
    }
    if (request.method === "POST" && response.status === 401) await refusals(request);
    reply.code(response === fallThrough ? 404 : response.status);
    response.headers.forEach((value, name) => {
      if (name !== "content-length" && name !== "transfer-encoding") reply.header(name, value);
    });
    const bytes = Buffer.from(await response.arrayBuffer());
    // Fedify's 500 for an activity it could not parse is the sender's fault.
    if (reply.statusCode >= 500 && request.method === "POST") {
      return reply
        .code(400)
        .type("application/json")
        .send({ error: { code: "validation_failed", message: "The activity could not be read." } });
    }
    return reply.send(bytes);
  }

  app.addHook("onRequest", (request, reply, done) => {
    const target = federationPathOf(request);
    if (target === null) {
      done();
      return;
    }
    answer(request, reply, target).then(
      (answered) => {
        if (answered === false) done();
      },
      (error: unknown) => done(error as Error),
    );
  });

  servePictures(app, { shownAvatar: (id) => repository.shownAvatar(id), picture });
}
