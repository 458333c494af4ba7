import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { verifyRequest } from "@fedify/fedify";
import { Resvg } from "@resvg/resvg-js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { readOwnerProfile } from "../../content/owner.ts";
import { commentResponseSchema, commentsResponseSchema } from "../../contract/api.ts";
import { auditResponseSchema } from "../../contract/console.ts";
import {
  eraseResponseSchema,
  followersResponseSchema,
  mentionsResponseSchema,
} from "../../contract/fediverse.ts";
import { commentEventSchema } from "../../contract/live-events.ts";
import { loadConfig } from "../../server/config.ts";
import { fragment } from "../support/built-site.ts";
import { longestTurn } from "../support/event-loop.ts";
import { waitFor } from "../support/wait-for.ts";
import { admin, adminEnv } from "./support/admin.ts";
import { Owner } from "./support/owner.ts";
import { injected, remoteAccountKeys } from "./support/remote-keys.ts";
import { runSql } from "./support/sql.ts";
import {
  backends,
  capturedLogs,
  json,
  siteUrl,
  soapFeed,
  startTestApp,
  type TestApp,
} from "./support/test-app.ts";

/*
 * The site as an ActivityPub actor, through inject on both databases: found
 * by WebFinger and NodeInfo, its actor and Articles as JSON for whoever asks
 * for JSON and pages for browsers, and an inbox that refuses what is not
 * signed, and never answers 500 to whatever is posted to it.
 */

const activityJson = "application/activity+json";
const actorUrl = `${siteUrl}/fediverse/actors/site`;

const jrdSchema = z.object({
  subject: z.string(),
  links: z.array(
    z.object({ rel: z.string(), type: z.string().optional(), href: z.string().optional() }),
  ),
});
const actorSchema = z.object({
  id: z.literal(actorUrl),
  type: z.literal("Person"),
  preferredUsername: z.string(),
  name: z.string(),
  inbox: z.string(),
  url: z.string(),
  publicKey: z.object({
    id: z.string(),
    publicKeyPem: z.string().startsWith("-----BEGIN PUBLIC KEY-----"),
  }),
  endpoints: z.object({ sharedInbox: z.literal(`${siteUrl}/fediverse/inbox`) }),
});
const articleSchema = z.object({
  type: z.literal("Article"),
  id: z.literal(`${siteUrl}/fediverse/items/science/soap`),
  url: z.literal(`${siteUrl}/science/soap`),
  name: z.literal("How does soap clean?"),
  content: z.string(),
  attributedTo: z.literal(actorUrl),
  tag: z.array(z.object({ type: z.string(), name: z.string(), href: z.string() })),
});

/** A 1×1 PNG. */
const png = Buffer.from(
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==",
  "base64",
);

/** A JSON-LD context that defines `terms` terms, inline. */
const wideContext = (terms: number) =>
  Object.fromEntries(
    Array.from({ length: terms }, (_, at) => [`t${at}`, `https://t.example/${at}#`]),
  );

/**
 * Another Fediverse server on loopback, as Mastodon shows its accounts: each
 * with a key and a picture (a real one, one too large, one that is a page),
 * and signed posts from them to the site's inbox.
 */
async function remoteServer() {
  const keys = await remoteAccountKeys();
  const pictures: Record<string, () => [string, Buffer]> = {
    asha: () => ["image/png", png],
    bo: () => ["image/png", Buffer.concat([png, Buffer.alloc(300 * 1024)])],
    cy: () => ["image/png", Buffer.from("<!doctype html><p>not a picture</p>")],
    dee: () => ["image/png", png],
    eve: () => ["image/png", png],
    fay: () => ["image/png", png],
    gus: () => ["image/png", png],
    hal: () => ["image/png", png],
    ivy: () => ["image/png", png],
    jo: () => ["image/png", png],
    kim: () => ["image/png", png],
    lu: () => ["image/png", png],
    max: () => ["image/png", png],
    nia: () => ["image/png", png],
    oma: () => ["image/png", png],
    the_author_desk: () => ["image/png", png],
    pia: () => ["image/png", png],
  };
  // A server may send any text as an account's name: one hides characters, and runs long.
  const usernames: Record<string, string> = {
    eve: `\u202Eev\u200Be\u001B]0;owned\u0007 ${"x".repeat(300)}`,
    // A name with a server in it: "@support@bank.example@their.host" reads as the bank's account.
    max: "support@bank.example",
  };
  const names: Record<string, string> = {
    eve: "\u001B]0;owned\u0007Eve\u202E\nRao",
    // A name the comment form would refuse: a link, which the text rules never read there.
    pia: "Pia Rao · deals at bit.ly/x7",
  };
  let base = "";
  /** What the site delivered to the accounts' inboxes, parsed. */
  const delivered: { type?: string; object?: unknown }[] = [];
  /** Everything delivered, with the inbox it went to: an account's, or the server's shared `/inbox`. */
  const arrivals: { inbox: string; activity: { type?: string; object?: unknown } }[] = [];
  /**
   * What the server did, in order: each delivery's type as it came in, and as it was
   * answered (or refused); and each request held (`Create held`, `GET /users/name held`).
   */
  const timeline: string[] = [];
  /** While set, the first request `held` matches is answered only once it is released. */
  let held: { matches: (text: string) => boolean; released: Promise<void> } | undefined;
  /** Holds the request described as `what` until released, if it is the one to hold. */
  const holding = async (text: string, what: string) => {
    if (!held?.matches(text)) return;
    const { released } = held;
    held = undefined;
    timeline.push(`${what} held`);
    await released;
  };
  /** Accounts whose documents answer 500 for now. */
  const unreadable = new Set<string>();
  /** Accounts deleted here: their documents answer 410, as Mastodon's do. */
  const deleted = new Set<string>();
  /** While `times` lasts, deliveries `refusing` matches are answered 503, as by a busy server. */
  let refusing: { matches: (text: string) => boolean; times: number } | undefined;
  const server: Server = createServer(async (request, response) => {
    const inbox = request.url ?? "";
    if (request.method === "POST" && /^(\/users\/\w+)?\/inbox$/.test(inbox)) {
      const chunks: Buffer[] = [];
      request.on("data", (chunk: Buffer) => chunks.push(chunk));
      request.on("end", async () => {
        const text = Buffer.concat(chunks).toString();
        const activity = JSON.parse(text);
        arrivals.push({ inbox, activity });
        timeline.push(`${activity.type} in`);
        if (inbox !== "/inbox") delivered.push(activity);
        await holding(text, activity.type);
        const refused = refusing?.matches(text) && refusing.times-- > 0;
        timeline.push(`${activity.type} ${refused ? "refused" : "answered"}`);
        response.writeHead(refused ? 503 : 202).end();
      });
      return;
    }
    if (request.url === "/contexts/wide") {
      return response
        .writeHead(200, { "content-type": "application/ld+json" })
        .end(JSON.stringify({ "@context": wideContext(1000) }));
    }
    const [, kind, name] = /^\/(users|pictures)\/(\w+)$/.exec(request.url ?? "") ?? [];
    const picture = name ? pictures[name] : undefined;
    if (!picture) return response.writeHead(404).end();
    await holding(`GET ${request.url}`, `GET ${request.url}`);
    if (kind === "users" && deleted.has(name ?? "")) {
      return response
        .writeHead(410, { "content-type": "application/json" })
        .end('{"error":"Gone"}');
    }
    if (kind === "users" && unreadable.has(name ?? "")) {
      timeline.push(`GET ${request.url} failed`);
      return response.writeHead(500).end();
    }
    if (kind === "pictures") {
      const [type, body] = picture();
      return response.writeHead(200, { "content-type": type }).end(body);
    }
    const id = `${base}/users/${name}`;
    // An account as Mastodon 4 describes it, its extensions and all.
    response.writeHead(200, { "content-type": "application/activity+json" }).end(
      JSON.stringify({
        "@context": [
          "https://www.w3.org/ns/activitystreams",
          "https://w3id.org/security/v1",
          {
            manuallyApprovesFollowers: "as:manuallyApprovesFollowers",
            toot: "http://joinmastodon.org/ns#",
            featured: { "@id": "toot:featured", "@type": "@id" },
            alsoKnownAs: { "@id": "as:alsoKnownAs", "@type": "@id" },
            schema: "http://schema.org#",
            PropertyValue: "schema:PropertyValue",
            value: "schema:value",
            discoverable: "toot:discoverable",
            indexable: "toot:indexable",
          },
        ],
        id,
        type: "Person",
        following: `${id}/following`,
        followers: `${id}/followers`,
        inbox: `${id}/inbox`,
        outbox: `${id}/outbox`,
        featured: `${id}/collections/featured`,
        preferredUsername: (name && usernames[name]) ?? name,
        name: (name && names[name]) ?? `${name?.[0]?.toUpperCase()}${name?.slice(1)} Rao`,
        summary: "<p>Process engineer. Soap, steam and surfaces.</p>",
        url: `${base}/@${name}`,
        manuallyApprovesFollowers: false,
        discoverable: true,
        indexable: false,
        published: "2023-04-01T00:00:00Z",
        publicKey: { id: `${id}#main-key`, owner: id, publicKeyPem: keys.publicKeyPem },
        tag: [],
        attachment: [
          {
            type: "PropertyValue",
            name: "Site",
            value: '<a href="https://example.org">example.org</a>',
          },
        ],
        endpoints: { sharedInbox: `${base}/inbox` },
        icon: { type: "Image", mediaType: "image/png", url: `${base}/pictures/${name}` },
      }),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    base,
    delivered,
    arrivals,
    timeline,
    unreadable,
    deleted,
    /**
     * Holds the answer to the first request whose text (a delivery's, or `GET /users/name`)
     * `matches` until the function returned is called.
     */
    hold: (matches: (text: string) => boolean) => {
      let release = () => {};
      held = { matches, released: new Promise((resolve) => (release = resolve)) };
      return () => {
        held = undefined;
        release();
      };
    },
    /** Answers the next `times` deliveries whose text `matches` with 503. */
    refuse: (matches: (text: string) => boolean, times: number) => {
      refusing = { matches, times };
    },
    actor: (name: string) => `${base}/users/${name}`,
    /** The activity, signed by `name`'s key, as inject's request to the shared inbox. */
    signed: async (name: string, activity: Record<string, unknown>) =>
      injected(await keys.signed(siteUrl, `${base}/users/${name}`, activity)),
    close: () => {
      server.closeAllConnections();
      server.close();
    },
  };
}

describe.each(backends)("the site on the Fediverse, on %s", (backend) => {
  let t: TestApp;
  let remote: Awaited<ReturnType<typeof remoteServer>>;
  const logs = capturedLogs("info");
  beforeAll(async () => {
    remote = await remoteServer();
    t = await startTestApp(backend, {
      logger: logs.logger,
      // The other server is on loopback: the tests' setting lets the site reach it.
      env: { FEDIVERSE_HANDLE: "arjun", ALLOW_PRIVATE_ADDRESSES_IN_TESTS: "on" },
      clientFiles: {
        "feed.json": JSON.stringify(soapFeed),
        "about/index.html": "<!doctype html><title>About</title>",
        "science/soap/index.html": "<!doctype html><title>Soap</title>",
        // An article's and a story's own pages: what other sites said shows under each.
        "technical/engine-knock/index.html": `<!doctype html><title>Knock</title><main>${fragment("technical:engine-knock", "mentions", "Why engines knock")}</main>`,
        "mythology/garuda/index.html": `<!doctype html><title>Garuda</title><main>${fragment("mythology:garuda", "summary", "Garuda")}${fragment("mythology:garuda", "mentions", "Garuda")}</main>`,
      },
    });
  });
  afterAll(async () => {
    await t?.close();
    remote?.close();
  });

  const get = (url: string, accept?: string) =>
    t.app.inject({ method: "GET", url, headers: accept ? { accept } : {} });

  // The first request loads Fedify: seconds, or a minute on a machine busy with other tests.
  it("is found by WebFinger as @arjun@ewe.test, and describes itself", {
    timeout: 240_000,
  }, async () => {
    const found = await get("/.well-known/webfinger?resource=acct:arjun@ewe.test");
    expect(found.statusCode).toBe(200);
    const jrd = jrdSchema.parse(found.json());
    expect(jrd.links).toContainEqual(
      expect.objectContaining({ rel: "self", type: activityJson, href: actorUrl }),
    );
    expect((await get("/.well-known/webfinger?resource=acct:someone@ewe.test")).statusCode).toBe(
      404,
    );

    const actor = await get("/fediverse/actors/site", activityJson);
    expect(actor.statusCode).toBe(200);
    const person = actorSchema.parse(actor.json());
    expect(person.preferredUsername).toBe("arjun");
    expect(person.url).toBe(`${siteUrl}/about`);
    // The same actor for anyone asking /about for JSON; a browser gets the page.
    expect(actorSchema.parse((await get("/about", activityJson)).json()).id).toBe(actorUrl);
    const page = await get("/about", "text/html");
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain("<title>About</title>");
    const browser = await get("/fediverse/actors/site", "text/html");
    expect(browser.statusCode).toBe(302);
    expect(browser.headers.location).toBe("/about");
  });

  it("gives each item as an Article, and its page to a browser", async () => {
    const article = articleSchema.parse(
      (await get("/fediverse/items/science/soap", activityJson)).json(),
    );
    expect(article.content).toContain("Soap molecules");
    // Filed under its section's hashtags, each linked to the section's page.
    expect(article.tag).toEqual([
      { type: "Hashtag", name: "#Science", href: `${siteUrl}/science` },
      { type: "Hashtag", name: "#EverydayScience", href: `${siteUrl}/science` },
    ]);
    // The item's own page, asked for as JSON, is the same Article.
    expect(articleSchema.parse((await get("/science/soap", activityJson)).json()).id).toBe(
      article.id,
    );
    expect((await get("/science/soap", "text/html")).body).toContain("<title>Soap</title>");
    expect((await get("/fediverse/items/science/nothing", activityJson)).statusCode).toBe(404);
    // Serving them warns of nothing the owner must act on (LogTape's own setup included).
    expect(logs.lines.filter((line) => line.fedify === "logtape.meta")).toEqual([]);
  });

  it("reads at most 1 MB of the account a signed post names, at either inbox", async () => {
    // Accounts of 20 MB each, at the address a post's signature names as its key's.
    const huge = Buffer.from(JSON.stringify({ id: "x", filler: "x".repeat(20_000_000) }));
    const sent: Record<string, "whole" | "cut short"> = {};
    const server = createServer((request, response) => {
      response.on("close", () => {
        sent[request.url ?? ""] = response.writableFinished ? "whole" : "cut short";
      });
      response.writeHead(200, { "content-type": activityJson }).end(huge);
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    try {
      const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const keys = await remoteAccountKeys();
      // The shared inbox reads the key as anyone; the site's own, signed as the site.
      for (const [name, inbox] of [
        ["zed", "/fediverse/inbox"],
        ["zoe", "/fediverse/actors/site/inbox"],
      ] as const) {
        const actor = `${base}/users/${name}`;
        const follow = { id: `${actor}#follows/1`, type: "Follow", actor, object: actorUrl };
        const posted = await t.app.inject(
          await injected(await keys.signed(siteUrl, actor, follow, inbox)),
        );
        expect(posted.statusCode, inbox).toBe(401);
        await waitFor(async () => sent[`/users/${name}`] !== undefined, {
          what: `the answer to ${inbox}'s fetch ended`,
        });
      }
      expect(sent).toEqual({ "/users/zed": "cut short", "/users/zoe": "cut short" });
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });

  it("follows a page's link to its account's document once, not round a ring of pages", async () => {
    // Two pages, each naming the other as its document: Fedify follows such a link.
    const asked: string[] = [];
    const server = createServer((request, response) => {
      asked.push(request.url ?? "");
      const other = request.url === "/users/ann" ? "/users/bob" : "/users/ann";
      response
        .writeHead(200, { "content-type": "text/html" })
        .end(`<link rel="alternate" type="application/activity+json" href="${other}">`);
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    try {
      const actor = `http://127.0.0.1:${(server.address() as AddressInfo).port}/users/ann`;
      const keys = await remoteAccountKeys();
      const follow = { id: `${actor}#follows/1`, type: "Follow", actor, object: actorUrl };
      const posted = await Promise.race([
        t.app.inject(await injected(await keys.signed(siteUrl, actor, follow))),
        new Promise<null>((resolve) => setTimeout(() => resolve(null), 10_000)),
      ]);
      expect(posted?.statusCode).toBe(401);
      expect(asked).toEqual(["/users/ann", "/users/bob"]);
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });

  it("reads a page the key's address answers without holding the server", async () => {
    // A page where a post's signature names its key: `<a` then 4,000 spaces, never closed.
    // Fedify's pattern for a page's document link took seconds on it, the cube of the spaces
    // (a page of 1 MB, for ever), and nothing else ran meanwhile.
    const asked: string[] = [];
    const server = createServer((request, response) => {
      asked.push(request.url ?? "");
      if (request.url === "/users/warm") return response.writeHead(404).end();
      response
        .writeHead(200, { "content-type": "text/html" })
        .end(`<p>Hi</p><a${" ".repeat(4_000)}`);
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const keys = await remoteAccountKeys();
    const post = async (name: string) => {
      const actor = `http://127.0.0.1:${(server.address() as AddressInfo).port}/users/${name}`;
      const follow = { id: `${actor}#follows/1`, type: "Follow", actor, object: actorUrl };
      return (await t.app.inject(await injected(await keys.signed(siteUrl, actor, follow))))
        .statusCode;
    };
    try {
      // Fedify loaded first: its loading holds the event loop too.
      expect(await post("warm")).toBe(401);
      const { value: status, longest } = await longestTurn(() => post("page"));
      expect(status).toBe(401);
      expect(asked).toEqual(["/users/warm", "/users/page"]);
      expect(longest).toBeLessThan(1_000);
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });

  it("fetches a key, signed as the site, from a server that answers only signed requests", async () => {
    const site = JSON.parse((await get(actorUrl, activityJson)).body);
    const keys = await remoteAccountKeys();
    const verdicts: string[] = [];
    // Mastodon in its secure mode: an account is served only to a request the asker signed.
    // One that moved (`/moved/sam`) is sent on to its new address, asked again, signed again.
    const server = createServer(async (request, response) => {
      const signer = await verifyRequest(
        new Request(`${base}${request.url}`, {
          headers: request.headers as Record<string, string>,
        }),
        { documentLoader: async (url) => ({ contextUrl: null, documentUrl: url, document: site }) },
      );
      verdicts.push(
        `${request.url} ${signer?.id?.href === `${actorUrl}#main-key` ? "signed" : "refused"}`,
      );
      if (!signer) return response.writeHead(401).end();
      const [asked = "", moved] = (request.url ?? "").split("?");
      const name = asked.split("/").pop();
      if (asked.startsWith("/moved/")) {
        return response.writeHead(302, { location: `/users/${name}?moved` }).end();
      }
      const id = moved === undefined ? `${base}${asked}` : `${base}/moved/${name}`;
      response.writeHead(200, { "content-type": activityJson }).end(
        JSON.stringify({
          "@context": ["https://www.w3.org/ns/activitystreams", "https://w3id.org/security/v1"],
          id,
          type: "Person",
          inbox: `${id}/inbox`,
          publicKey: { id: `${id}#main-key`, owner: id, publicKeyPem: keys.publicKeyPem },
        }),
      );
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const statuses: number[] = [];
      for (const actor of [`${base}/users/sam`, `${base}/moved/kim`]) {
        // An Accept of nothing here changes nothing: only its signature is checked.
        const accept = { id: `${actor}#accepts/1`, type: "Accept", actor, object: `${actor}#x` };
        const inbox = "/fediverse/actors/site/inbox";
        const posted = await t.app.inject(
          await injected(await keys.signed(siteUrl, actor, accept, inbox)),
        );
        statuses.push(posted.statusCode);
      }
      expect({ statuses, verdicts }).toEqual({
        statuses: [202, 202],
        verdicts: ["/users/sam signed", "/moved/kim signed", "/users/kim?moved signed"],
      });
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });

  it("lets the owner block a server from the command line, and lists it", async () => {
    const env = adminEnv(t);
    expect((await admin(env, "fediverse", "block", "mastodon.example")).code).toBe(0);
    expect((await admin(env, "fediverse", "block", "mastodon.example")).code).toBe(3);
    expect((await admin(env, "fediverse", "block", "not a server!")).code).toBe(2);
    expect((await admin(env, "fediverse", "blocks")).stdout).toContain("mastodon.example");
    expect((await admin(env, "fediverse", "unblock", "mastodon.example")).code).toBe(0);
    expect((await admin(env, "fediverse", "unblock", "mastodon.example")).code).toBe(3);
    const followers = await admin(env, "fediverse", "followers");
    expect(followers.stdout.trim()).toBe("handle\tname\tfollowed_at\tactor");
    const mentions = await admin(env, "webmentions", "list");
    expect(mentions.stdout.trim()).toBe("id\tstatus\tkind\titem\tsource\tauthor\treceived_at");
    expect((await admin(env, "webmentions", "approve", "5")).code).toBe(3);
    expect((await admin(env, "webmentions", "remove", "5")).code).toBe(3);
    expect((await admin(env, "webmentions", "approve", "five")).code).toBe(2);
  });

  it("lets the owner block and unblock from the console's Followers screen, audited", async () => {
    const owner = new Owner(t);
    expect((await owner.signIn()).statusCode).toBe(200);
    const followers = async () =>
      json(await owner.get("/api/admin/followers"), followersResponseSchema);
    expect(await followers()).toEqual({ followers: [], next: null, total: 0, blocks: [] });
    const block = (target: string) => owner.post("/api/admin/fediverse/block", { target });
    expect((await block("@troll@spam.example.net")).statusCode).toBe(204);
    expect((await block("spam.example.net")).statusCode).toBe(409);
    expect((await block("not a server!")).statusCode).toBe(400);
    // A name without a dot is no server on the Fediverse: a slip for "mastodon.social" blocks nothing.
    const oneLabel = await block("mastodon");
    const unread =
      "Give an account's address (https://…) or a server's host name (mastodon.social).";
    // Its field named, as a schema's refusal names it, for the console to mark.
    expect([oneLabel.statusCode, JSON.parse(oneLabel.body).error]).toEqual([
      400,
      {
        code: "validation_failed",
        message: unread,
        issues: [{ path: "body.target", message: unread }],
      },
    ]);
    expect((await block("")).statusCode).toBe(400);
    expect((await followers()).blocks.map((one) => one.target)).toEqual(["spam.example.net"]);
    const unblock = (target: string) => owner.post("/api/admin/fediverse/unblock", { target });
    expect((await unblock("spam.example.net")).statusCode).toBe(204);
    expect((await unblock("spam.example.net")).statusCode).toBe(404);
    // One made before names needed a dot can still be lifted: none here.
    expect((await unblock("mastodon")).statusCode).toBe(404);
    const audit = json(await owner.get("/api/admin/audit"), auditResponseSchema);
    const lines = audit.entries.filter((entry) => entry.object === "spam.example.net");
    expect(lines.map(({ action, object }) => [action, object]).sort()).toEqual([
      ["fediverse block", "spam.example.net"],
      ["fediverse unblock", "spam.example.net"],
    ]);
    expect(json(await owner.get("/api/admin/webmentions"), mentionsResponseSchema)).toEqual({
      mentions: [],
    });
    expect((await owner.post("/api/admin/webmentions/7/approve")).statusCode).toBe(404);
    expect((await owner.delete("/api/admin/webmentions/7")).statusCode).toBe(404);
    expect((await owner.delete("/api/admin/webmentions/x")).statusCode).toBe(400);
    // Not the owner: refused.
    expect((await t.app.inject({ method: "GET", url: "/api/admin/followers" })).statusCode).toBe(
      401,
    );
  });

  it("shows a reply's writer's handle and a follower's name as one short line, without the hidden characters their server sent", async () => {
    const id = `${remote.actor("eve")}/statuses/1`;
    const posted = await t.app.inject(
      await remote.signed("eve", {
        id: `${id}/activity`,
        type: "Create",
        actor: remote.actor("eve"),
        object: {
          id,
          type: "Note",
          attributedTo: remote.actor("eve"),
          inReplyTo: `${siteUrl}/fediverse/items/science/soap`,
          content: "<p>eve agrees about grease.</p>",
          to: ["https://www.w3.org/ns/activitystreams#Public"],
        },
      }),
    );
    expect(posted.statusCode).toBe(202);
    const eve = async () =>
      json(await get("/api/items/science/soap/comments"), commentsResponseSchema).comments.find(
        (comment) => comment.content.startsWith("eve"),
      );
    await waitFor(async () => (await eve()) !== undefined, {
      timeoutMs: 120_000,
      what: "eve's reply under the post",
    });
    const handle = (await eve())?.remote?.handle ?? "";
    // Hidden, control and space characters dropped; cut at 64 characters.
    expect(handle).toBe(`@eve]0;owned${"x".repeat(52)}…@${new URL(remote.base).host}`);

    // The same account as a follower, in the owner's terminal.
    const follow = {
      id: `${remote.actor("eve")}#follows/1`,
      type: "Follow",
      actor: remote.actor("eve"),
      object: actorUrl,
    };
    expect((await t.app.inject(await remote.signed("eve", follow))).statusCode).toBe(202);
    const followers = async () => (await admin(adminEnv(t), "fediverse", "followers")).stdout;
    await waitFor(async () => (await followers()).includes("@eve"), { what: "eve following" });
    const listed = (await followers()).split("\n")[1]?.split("\t");
    // The handle behind a quote, as a spreadsheet's formula guard writes one starting "@".
    expect(listed?.slice(0, 2)).toEqual([`'${handle}`, "]0;ownedEve Rao"]);
    const undone = await t.app.inject(
      await remote.signed("eve", {
        id: `${remote.actor("eve")}#follows/1/undo`,
        type: "Undo",
        actor: remote.actor("eve"),
        object: follow,
      }),
    );
    expect(undone.statusCode).toBe(202);
    await waitFor(async () => !(await followers()).includes("@eve"), { what: "eve gone" });

    // Deleted there, gone here: the tests below count the post's comments.
    const deleted = await t.app.inject(
      await remote.signed("eve", {
        id: `${id}#delete`,
        type: "Delete",
        actor: remote.actor("eve"),
        to: ["https://www.w3.org/ns/activitystreams#Public"],
        object: { id, type: "Tombstone" },
      }),
    );
    expect(deleted.statusCode).toBe(202);
    await waitFor(async () => (await eve()) === undefined, {
      timeoutMs: 120_000,
      what: "eve's reply gone with its deletion",
    });
  });

  it("shows a reply's writer as their server does, with their picture served from here, and forgets them when their account goes", {
    timeout: 240_000,
  }, async () => {
    const replyFrom = async (name: string, url: string) => {
      const id = `${remote.actor(name)}/statuses/1`;
      const note = {
        id,
        type: "Note",
        attributedTo: remote.actor(name),
        inReplyTo: `${siteUrl}/fediverse/items/science/soap`,
        content: `<p>${name} thinks the soap piece is right about grease.</p>`,
        url,
        to: ["https://www.w3.org/ns/activitystreams#Public"],
      };
      const posted = await t.app.inject(
        await remote.signed(name, {
          id: `${id}/activity`,
          type: "Create",
          actor: remote.actor(name),
          object: note,
        }),
      );
      expect(posted.statusCode).toBe(202);
      return id;
    };
    const comments = async () =>
      json(await get("/api/items/science/soap/comments"), commentsResponseSchema).comments;
    const byName = async (name: string) =>
      (await comments()).find((comment) => comment.content.startsWith(name));

    await replyFrom("asha", `${remote.base}/@asha/1`);
    // A post address that is not a web page is not linked: the Note's own address is.
    const boNote = await replyFrom("bo", "javascript:alert(1)");
    await replyFrom("cy", `${remote.base}/@cy/1`);
    await waitFor(async () => (await comments()).length === 3, {
      timeoutMs: 120_000,
      what: "three replies from the Fediverse under the post",
    });

    const asha = await byName("asha");
    expect(asha).toMatchObject({
      userName: "Asha Rao",
      remote: {
        handle: `@asha@${new URL(remote.base).host}`,
        url: `${remote.base}/@asha/1`,
        avatar: `/fediverse/avatars/${asha?.id}`,
      },
    });
    const picture = await get(asha?.remote?.avatar ?? "");
    expect(picture.statusCode).toBe(200);
    expect(picture.headers["content-type"]).toBe("image/png");
    expect(picture.headers["x-content-type-options"]).toBe("nosniff");
    expect(picture.rawPayload.equals(png)).toBe(true);
    // Every cache asks again before it shows it, so an erased picture is gone at once.
    expect(picture.headers["cache-control"]).toBe("no-cache");
    const held = { "if-none-match": String(picture.headers.etag) };
    const again = () =>
      t.app.inject({ method: "GET", url: asha?.remote?.avatar ?? "", headers: held });
    const unchanged = await again();
    expect(unchanged.statusCode).toBe(304);
    expect(unchanged.rawPayload.length).toBe(0);
    // Too large, or not a picture: the comment stands, with the drawn avatar.
    const bo = await byName("bo");
    expect(bo?.remote).toEqual({ handle: `@bo@${new URL(remote.base).host}`, url: boNote });
    expect((await byName("cy"))?.remote?.avatar).toBeUndefined();
    expect((await get(`/fediverse/avatars/${bo?.id}`)).statusCode).toBe(404);
    for (const path of [
      "/fediverse/avatars/0",
      "/fediverse/avatars/x",
      "/fediverse/avatars/99999",
      // Past the largest id a row can have (PostgreSQL's integer).
      "/fediverse/avatars/2147483648",
      "/fediverse/avatars/9999999999",
    ]) {
      expect((await get(path)).statusCode, path).toBe(404);
    }
    // Open pages got each comment with its writer, as the list has it.
    const added = (await runSql(t, "select data from events where topic = ?", ["science:soap"]))
      .map((row) => commentEventSchema.parse(JSON.parse(String(row.data))))
      .find((event) => event.action === "added" && event.commentId === asha?.id);
    expect(added && "comment" in added ? added.comment.remote : null).toEqual(asha?.remote);

    // Asha's account is deleted on her server: nothing of hers is left here.
    const gone = await t.app.inject(
      await remote.signed("asha", {
        id: `${remote.actor("asha")}#delete`,
        type: "Delete",
        actor: remote.actor("asha"),
        object: remote.actor("asha"),
        to: ["https://www.w3.org/ns/activitystreams#Public"],
      }),
    );
    expect(gone.statusCode).toBe(202);
    // What Fedify cached of her account (its document, its key) goes too,
    // last: the inbox removes her replies first.
    const caches = ['["_fedify","remoteDocument",', '["_fedify","publicKey",'];
    const cachedOfAsha = async () =>
      (await runSql(t, "select key from fediverse_kv"))
        .map((row) => String(row.key))
        .filter(
          (key) => caches.some((prefix) => key.startsWith(prefix)) && key.includes("/users/asha"),
        );
    await waitFor(
      async () => (await byName("asha")) === undefined && (await cachedOfAsha()).length === 0,
      { timeoutMs: 120_000, what: "Asha's reply and her cached account gone with her account" },
    );
    expect((await get(asha?.remote?.avatar ?? "")).statusCode).toBe(404);
    // A cache holding her picture, asking again, is told it is gone.
    expect((await again()).statusCode).toBe(404);
    expect(
      await runSql(t, "select comment_id from fediverse_replies where actor_id = ?", [
        remote.actor("asha"),
      ]),
    ).toEqual([]);
    expect((await comments()).length).toBe(2);
  });

  it("takes an account's new name, handle and picture from its Update, on its reply and its follow, and from no one else", {
    timeout: 240_000,
  }, async () => {
    const oma = remote.actor("oma");
    const host = new URL(remote.base).host;
    const note = `${oma}/statuses/1`;
    const sent = async (by: string, activity: Record<string, unknown>) =>
      expect((await t.app.inject(await remote.signed(by, activity))).statusCode).toBe(202);
    await sent("oma", {
      id: `${note}/activity`,
      type: "Create",
      actor: oma,
      object: {
        id: note,
        type: "Note",
        attributedTo: oma,
        inReplyTo: `${siteUrl}/fediverse/items/science/soap`,
        content: "<p>oma rinses in cold water.</p>",
        to: ["https://www.w3.org/ns/activitystreams#Public"],
      },
    });
    await sent("oma", { id: `${oma}#follows/1`, type: "Follow", actor: oma, object: actorUrl });
    const omas = async () =>
      json(await get("/api/items/science/soap/comments"), commentsResponseSchema).comments.find(
        (comment) => comment.content.startsWith("oma"),
      );
    const followers = async () => (await admin(adminEnv(t), "fediverse", "followers")).stdout;
    await waitFor(
      async () => (await omas()) !== undefined && (await followers()).includes("@oma"),
      {
        timeoutMs: 120_000,
        what: "oma's reply under the post, and oma following",
      },
    );
    const before = await omas();
    expect(before).toMatchObject({ userName: "Oma Rao", remote: { handle: `@oma@${host}` } });

    /** The account as its server describes it after a change, in an Update signed by `by`. */
    const update = (by: string, n: number, person: Record<string, unknown>) =>
      sent(by, {
        id: `${remote.actor(by)}#updates/${n}`,
        type: "Update",
        actor: remote.actor(by),
        to: ["https://www.w3.org/ns/activitystreams#Public"],
        object: {
          id: oma,
          type: "Person",
          inbox: `${oma}/inbox`,
          icon: { type: "Image", mediaType: "image/png", url: `${remote.base}/pictures/oma` },
          ...person,
        },
      });
    const handled = (n: number) => async () =>
      (await runSql(t, "select message from fediverse_queue")).every(
        (row) => !String(row.message).includes(`#updates/${n}`),
      );
    // Another account's Update of oma's account changes nothing.
    await update("bo", 1, { name: "Bo's puppet", preferredUsername: "puppet" });
    await waitFor(handled(1), { timeoutMs: 120_000, what: "bo's Update handled" });
    expect(await omas()).toEqual(before);

    await update("oma", 2, { name: "Oma Menon", preferredUsername: "oma_m" });
    const renamed = async () => (await omas())?.userName === "Oma Menon";
    await waitFor(renamed, { timeoutMs: 120_000, what: "oma's reply under her new name" });
    const after = await omas();
    expect(after?.remote).toEqual({ ...before?.remote, handle: `@oma_m@${host}` });
    expect((await get(after?.remote?.avatar ?? "")).rawPayload.equals(png)).toBe(true);
    expect((await followers()).split("\n").find((line) => line.includes("@oma_m"))).toContain(
      "Oma Menon",
    );
    // Open pages heard of it, with the writer as the list has it.
    const events = (await runSql(t, "select data from events where topic = ?", ["science:soap"]))
      .map((row) => commentEventSchema.parse(JSON.parse(String(row.data))))
      .filter((event) => event.commentId === after?.id && event.action === "updated");
    expect(events.at(-1)).toMatchObject({
      comment: { userName: "Oma Menon", remote: after?.remote },
    });

    // A name that reads as the owner's badge goes by the handle, as a reply's would on arrival.
    await update("oma", 3, { name: "Author", preferredUsername: "oma_m" });
    await waitFor(async () => (await omas())?.userName === `@oma_m@${host}`, {
      timeoutMs: 120_000,
      what: "oma's reply under her handle",
    });
  });

  it("forgets an account deleted on its server whose key it no longer holds, and takes nothing else so signed", {
    timeout: 240_000,
  }, async () => {
    const nia = remote.actor("nia");
    // From an address of its own: the refusals below count against it alone.
    const fromNias = async (activity: Record<string, unknown>) => ({
      ...(await remote.signed("nia", activity)),
      remoteAddress: "198.51.100.7",
    });
    const replied = await t.app.inject(
      await fromNias({
        id: `${nia}/statuses/1/activity`,
        type: "Create",
        actor: nia,
        object: {
          id: `${nia}/statuses/1`,
          type: "Note",
          attributedTo: nia,
          inReplyTo: `${siteUrl}/fediverse/items/science/soap`,
          content: "<p>Nia keeps a bar of soap by every tap.</p>",
          to: ["https://www.w3.org/ns/activitystreams#Public"],
        },
      }),
    );
    expect(replied.statusCode).toBe(202);
    const niasReply = async () =>
      json(await get("/api/items/science/soap/comments"), commentsResponseSchema).comments.find(
        (comment) => comment.content.startsWith("Nia keeps"),
      );
    await waitFor(async () => (await niasReply()) !== undefined, {
      timeoutMs: 120_000,
      what: "Nia's reply under the post",
    });
    // A day on, the site has let go of her key; then her account is deleted,
    // and her server answers 410 for it and its key.
    await runSql(t, "delete from fediverse_kv where key like ?", ["%/users/nia%"]);
    remote.deleted.add("nia");
    // Only the account's own Delete is taken so: not another activity, nor a Delete of a post.
    for (const activity of [
      {
        id: `${nia}#like`,
        type: "Like",
        actor: nia,
        object: `${siteUrl}/fediverse/items/science/soap`,
      },
      { id: `${nia}/statuses/1#delete`, type: "Delete", actor: nia, object: `${nia}/statuses/1` },
    ]) {
      const refused = await t.app.inject(await fromNias(activity));
      expect(refused.statusCode, activity.type).toBe(401);
    }
    expect(await niasReply()).toBeDefined();
    const deletion = await t.app.inject(
      await fromNias({
        id: `${nia}#delete`,
        type: "Delete",
        actor: nia,
        object: nia,
        to: ["https://www.w3.org/ns/activitystreams#Public"],
      }),
    );
    expect(deletion.statusCode).toBe(202);
    expect(await niasReply()).toBeUndefined();
    expect(
      await runSql(t, "select comment_id from fediverse_replies where actor_id = ?", [nia]),
    ).toEqual([]);
  });

  it("erases an account in one step, from the console by its comment and from the command line by its address", {
    timeout: 240_000,
  }, async () => {
    const host = new URL(remote.base).host;
    const comments = async () =>
      json(await get("/api/items/science/soap/comments"), commentsResponseSchema).comments;
    const byHandle = async (handle: string) =>
      (await comments()).find((comment) => comment.remote?.handle === handle);
    // Left by the test before: Bo's and Cy's replies. Bo follows, likes the
    // post, and a page of his mentions it; a reader answers his reply.
    const bo = await byHandle(`@bo@${host}`);
    const cy = await byHandle(`@cy@${host}`);
    expect(bo && cy).toBeTruthy();
    const sent = async (activity: Record<string, unknown>) =>
      expect((await t.app.inject(await remote.signed("bo", activity))).statusCode).toBe(202);
    await sent({
      id: `${remote.actor("bo")}#follows/1`,
      type: "Follow",
      actor: remote.actor("bo"),
      object: actorUrl,
    });
    await sent({
      id: `${remote.actor("bo")}#likes/1`,
      type: "Like",
      actor: remote.actor("bo"),
      object: `${siteUrl}/fediverse/items/science/soap`,
    });
    const answer = await t.visitor().reply("soap", bo?.id ?? 0, "Bo has it right.", "Meera");
    expect(answer.statusCode).toBe(201);
    await runSql(
      t,
      "insert into webmentions (source, target, path, status, kind, author_name, author_url, content, received_at, verified_at) values (?, ?, '/science/soap', 'published', 'mention', 'Bo', ?, 'Bo on soap.', ?, ?)",
      [
        `${remote.base}/@bo/7`,
        `${siteUrl}/science/soap`,
        `${remote.base}/@bo`,
        new Date().toISOString(),
        new Date().toISOString(),
      ],
    );
    const owner = new Owner(t);
    expect((await owner.signIn()).statusCode).toBe(200);
    const followers = async () =>
      json(await owner.get("/api/admin/followers"), followersResponseSchema);
    await waitFor(
      async () =>
        (await followers()).followers.some((one) => one.actorId === remote.actor("bo")) &&
        (await runSql(t, "select 1 from fediverse_reactions")).length === 1,
      { timeoutMs: 120_000, what: "Bo's follow and like recorded" },
    );
    const aboutBo = async () =>
      (await runSql(t, "select key from fediverse_kv"))
        .map((row) => String(row.key))
        .filter((key) => key.includes("/users/bo"));
    expect(await aboutBo()).not.toEqual([]);

    // From the console, by his comment.
    const erase = (body: Record<string, unknown>) => owner.post("/api/admin/fediverse/erase", body);
    const erased = await erase({ commentId: bo?.id });
    expect(erased.statusCode).toBe(200);
    expect(json(erased, eraseResponseSchema)).toEqual({
      actorId: remote.actor("bo"),
      comments: 1,
      followed: true,
      reactions: 1,
      mentions: 1,
    });
    // His reply keeps only its place, for the reader's answer under it.
    const place = (await comments()).find((comment) => comment.id === bo?.id);
    expect(place).toMatchObject({ deleted: true, userName: "", content: "" });
    expect(place?.remote).toBeUndefined();
    expect((await comments()).some((comment) => comment.content === "Bo has it right.")).toBe(true);
    expect((await get(`/fediverse/avatars/${bo?.id}`)).statusCode).toBe(404);
    const left = await Promise.all(
      [
        "select 1 from fediverse_replies where actor_id = ?",
        "select 1 from fediverse_followers where actor_id = ?",
        "select 1 from fediverse_reactions where actor_id = ?",
      ].map((query) => runSql(t, query, [remote.actor("bo")])),
    );
    expect(left).toEqual([[], [], []]);
    expect(await runSql(t, "select 1 from webmentions where author_url like ?", ["%/@bo"])).toEqual(
      [],
    );
    expect(await aboutBo()).toEqual([]);
    // The journal that reconnecting pages replay holds nothing of his either.
    const journal = (await runSql(t, "select data from events where topic = 'science:soap'"))
      .map((row) => String(row.data))
      .join("\n");
    expect(journal).not.toContain(`@bo@${host}`);
    expect(journal).not.toContain("bo thinks");
    // He stays blocked: the owner sees it, and lifts it there.
    expect((await followers()).blocks.map((one) => one.target)).toContain(remote.actor("bo"));
    expect((await erase({ commentId: bo?.id })).statusCode).toBe(404);
    expect((await erase({ actor: remote.actor("bo") })).statusCode).toBe(409);
    expect((await erase({ actor: "mastodon.example" })).statusCode).toBe(400);
    expect((await erase({ actor: "x", commentId: 3 })).statusCode).toBe(400);
    const readers = json(answer, commentResponseSchema).comment.id;
    expect((await erase({ commentId: readers })).statusCode).toBe(404);

    // From the command line, by address; the owner's answer to him went out before.
    const toCy = await owner.post(`/api/admin/comments/${cy?.id}/reply`, { content: "Noted, Cy." });
    expect(toCy.statusCode).toBe(201);
    const toCyId = json(toCy, commentResponseSchema).comment.id;
    const cyNote = noteOf(toCyId);
    await waitFor(
      async () =>
        remote.delivered.some(
          (activity) =>
            activity.type === "Create" && (activity.object as { id?: string }).id === cyNote,
        ),
      { timeoutMs: 120_000, what: "the owner's answer at Cy's server" },
    );
    const env = adminEnv(t);
    expect((await admin(env, "fediverse", "erase")).code).toBe(2);
    expect((await admin(env, "fediverse", "erase", "not-an-address")).code).toBe(2);
    const cli = await admin(env, "fediverse", "erase", remote.actor("cy"));
    expect(cli.code).toBe(0);
    expect(cli.stdout).toContain(`Erased ${remote.actor("cy")}: 1 comment`);
    // The running server hears of the command line's deletion from the journal.
    await waitFor(async () => (await byHandle(`@cy@${host}`)) === undefined, {
      timeoutMs: 60_000,
      what: "Cy's reply gone from the open page",
    });
    expect((await admin(env, "fediverse", "erase", remote.actor("cy"))).code).toBe(3);
    expect((await admin(env, "fediverse", "erase", "--comment", "99999")).code).toBe(3);
    expect((await admin(env, "fediverse", "blocks")).stdout).toContain(remote.actor("cy"));
    // The answer stays here, but is gone from the Fediverse, naming nobody: the
    // command line queued its Delete, which the running server sends to Cy's server.
    await waitFor(
      async () => deletionsOf(toCyId).some(({ inbox }) => inbox === "/users/cy/inbox"),
      { timeoutMs: 120_000, what: "the answer's Delete at Cy's server" },
    );
    for (const { activity } of deletionsOf(toCyId)) expectNamesNobody(activity, "Noted");
    expect(await heldAbout("/users/cy")).toEqual([]);
    const gone = await get(cyNote, activityJson);
    expect(gone.statusCode).toBe(410);
    expect(gone.json()).toMatchObject({ id: cyNote, type: "Tombstone", formerType: "Note" });
    expect(gone.body).not.toContain("/users/cy");
    expect(
      await runSql(t, "select path from fediverse_published where digest like ?", ["%/users/cy%"]),
    ).toEqual([]);

    const audit = json(await owner.get("/api/admin/audit"), auditResponseSchema);
    expect(
      audit.entries
        .filter((entry) => entry.action === "fediverse erase")
        .map((entry) => entry.object)
        .sort(),
    ).toEqual([remote.actor("bo"), remote.actor("cy")].sort());
    // Unblocked, they may come back.
    expect((await admin(env, "fediverse", "unblock", remote.actor("bo"))).code).toBe(0);
    expect((await admin(env, "fediverse", "unblock", remote.actor("cy"))).code).toBe(0);
  });

  it("shows the mentions of an article and of a story under each, as of a science post", async () => {
    const mention = (path: string, author: string, source: string) =>
      runSql(
        t,
        "insert into webmentions (source, target, path, status, kind, author_name, author_url, content, received_at, verified_at) values (?, ?, ?, 'published', 'mention', ?, ?, ?, ?, ?)",
        [
          source,
          `${siteUrl}${path}`,
          path,
          author,
          "https://blog.engines.example.org/",
          `${author} wrote about this.`,
          new Date().toISOString(),
          new Date().toISOString(),
        ],
      );
    await mention("/technical/engine-knock", "Maya Chen", "https://blog.engines.example.org/knock");
    await mention("/mythology/garuda", "Ravi Iyer", "https://myths.example.org/garuda");
    for (const [path, author, source] of [
      ["/technical/engine-knock", "Maya Chen", "https://blog.engines.example.org/knock"],
      ["/mythology/garuda", "Ravi Iyer", "https://myths.example.org/garuda"],
    ] as const) {
      const page = await get(path, "text/html");
      expect(page.statusCode, path).toBe(200);
      expect(page.body, path).toContain("Mentions");
      expect(page.body, path).toContain(`${author} wrote about this.`);
      expect(page.body, path).toContain(`href="${source}" rel="nofollow ugc noopener"`);
      expect(page.body, path).not.toContain("<ewe-fragment");
    }
  });

  it("takes what a Mastodon server sends: a reply with a content warning and mentions, a like, a boost, their undoing and a deletion", {
    timeout: 240_000,
  }, async () => {
    const dee = remote.actor("dee");
    const public_ = "https://www.w3.org/ns/activitystreams#Public";
    // Mastodon's own context: its extensions inline, nothing to fetch.
    const context = [
      "https://www.w3.org/ns/activitystreams",
      {
        ostatus: "http://ostatus.org#",
        atomUri: "ostatus:atomUri",
        inReplyToAtomUri: "ostatus:inReplyToAtomUri",
        conversation: "ostatus:conversation",
        sensitive: "as:sensitive",
        toot: "http://joinmastodon.org/ns#",
        votersCount: "toot:votersCount",
        Hashtag: "as:Hashtag",
      },
    ];
    const soap = `${siteUrl}/fediverse/items/science/soap`;
    const garuda = `${siteUrl}/fediverse/items/mythology/garuda`;
    const status = `${dee}/statuses/113554`;
    const content =
      `<p><span class="h-card" translate="no"><a href="${siteUrl}/about" class="u-url mention">@<span>arjun</span></a></span> ` +
      '<span class="h-card" translate="no"><a href="https://other.example/@lee" class="u-url mention">@<span>lee</span></a></span> ' +
      'Hard water is why our rinse line needs twice the soap. <a href="https://mastodon.example/tags/chemistry" class="mention hashtag" rel="tag">#<span>chemistry</span></a></p>';
    const note = {
      id: status,
      type: "Note",
      summary: "Long, about detergents",
      inReplyTo: soap,
      published: "2026-11-30T10:00:00Z",
      url: `${remote.base}/@dee/113554`,
      attributedTo: dee,
      to: [public_],
      cc: [`${dee}/followers`, actorUrl],
      sensitive: true,
      atomUri: status,
      inReplyToAtomUri: soap,
      conversation: "tag:mastodon.example,2026-11-30:objectId=9:objectType=Conversation",
      content,
      contentMap: { en: content },
      attachment: [],
      tag: [
        { type: "Mention", href: actorUrl, name: "@arjun@ewe.test" },
        { type: "Mention", href: "https://other.example/users/lee", name: "@lee@other.example" },
        { type: "Hashtag", href: "https://mastodon.example/tags/chemistry", name: "#chemistry" },
      ],
    };
    const posted = await t.app.inject(
      await remote.signed("dee", {
        "@context": context,
        id: `${status}/activity`,
        type: "Create",
        actor: dee,
        published: note.published,
        to: note.to,
        cc: note.cc,
        object: note,
      }),
    );
    expect(posted.statusCode).toBe(202);
    const reply = async () =>
      json(await get("/api/items/science/soap/comments"), commentsResponseSchema).comments.find(
        (comment) => comment.remote?.handle === `@dee@${new URL(remote.base).host}`,
      );
    await waitFor(async () => (await reply()) !== undefined, {
      timeoutMs: 120_000,
      what: "Dee's reply under the post",
    });
    const shown = await reply();
    // The warning comes first, the site's own mention goes, the others are text.
    expect(shown?.content).toMatch(/^\*\*Content warning: Long, about detergents\*\*\n\n/);
    expect(shown?.content).toContain("@lee Hard water is why our rinse line needs twice the soap.");
    expect(shown?.content).not.toContain("@arjun");
    expect(shown?.remote?.url).toBe(`${remote.base}/@dee/113554`);

    // A like and a boost of a story, as Mastodon words them, counted on its page.
    const counted = async () =>
      /(\d+) from the Fediverse/.exec((await get("/mythology/garuda", "text/html")).body)?.[1];
    const like = { id: `${dee}#likes/7001`, type: "Like", actor: dee, object: garuda };
    const boost = {
      id: `${dee}/statuses/113555/activity`,
      type: "Announce",
      actor: dee,
      published: "2026-11-30T11:00:00Z",
      to: [public_],
      cc: [actorUrl, `${dee}/followers`],
      object: garuda,
    };
    for (const activity of [like, boost]) {
      const answer = await t.app.inject(await remote.signed("dee", activity));
      expect(answer.statusCode, activity.type).toBe(202);
    }
    await waitFor(async () => (await counted()) === "2", {
      timeoutMs: 60_000,
      what: "the like and the boost counted on the story's page",
    });
    // The boost taken back, with the activity inside the Undo as Mastodon sends it.
    const undone = await t.app.inject(
      await remote.signed("dee", {
        id: `${dee}#announces/113555/undo`,
        type: "Undo",
        actor: dee,
        to: [public_],
        object: boost,
      }),
    );
    expect(undone.statusCode).toBe(202);
    await waitFor(async () => (await counted()) === "1", {
      timeoutMs: 60_000,
      what: "the boost taken back",
    });

    // The reply deleted on Mastodon, which sends a Tombstone: gone here too.
    const deleted = await t.app.inject(
      await remote.signed("dee", {
        "@context": context,
        id: `${status}#delete`,
        type: "Delete",
        actor: dee,
        to: [public_],
        object: { id: status, type: "Tombstone", atomUri: status },
      }),
    );
    expect(deleted.statusCode).toBe(202);
    await waitFor(async () => (await reply()) === undefined, {
      timeoutMs: 120_000,
      what: "Dee's reply gone with its deletion",
    });
  });

  /** `name`'s post at `id`, in reply to the soap post unless told, delivered to the site's inbox. */
  const says = async (
    name: string,
    id: string,
    text: string,
    inReplyTo = `${siteUrl}/fediverse/items/science/soap`,
  ) =>
    t.app.inject(
      await remote.signed(name, {
        id: `${id}/activity`,
        type: "Create",
        actor: remote.actor(name),
        object: {
          id,
          type: "Note",
          attributedTo: remote.actor(name),
          inReplyTo,
          content: `<p>${text}</p>`,
          to: ["https://www.w3.org/ns/activitystreams#Public"],
        },
      }),
    );
  /** Dee's post number `n`. */
  const deeSays = (n: number, text: string, inReplyTo?: string) =>
    says("dee", `${remote.actor("dee")}/statuses/${n}`, text, inReplyTo);
  /** The comment under the soap post that reads `text`, once it is there. */
  const commentSaying = async (text: string) => {
    const find = async () =>
      json(await get("/api/items/science/soap/comments"), commentsResponseSchema).comments.find(
        (comment) => comment.content === text,
      );
    await waitFor(async () => (await find()) !== undefined, { timeoutMs: 120_000, what: text });
    return (await find()) ?? expect.fail(text);
  };
  const noteOf = (id: number) => `${siteUrl}/fediverse/notes/${id}`;
  const deliveredAbout = (id: number) =>
    remote.delivered.filter(
      (activity) => (activity.object as { id?: string } | undefined)?.id === noteOf(id),
    );
  /** The owner's answer to comment `parentId`, once its Create reached the writer's server. */
  const answerSent = async (owner: Owner, parentId: number, content: string) => {
    const answered = await owner.post(`/api/admin/comments/${parentId}/reply`, { content });
    expect(answered.statusCode).toBe(201);
    const id = json(answered, commentResponseSchema).comment.id;
    await waitFor(async () => deliveredAbout(id).some((activity) => activity.type === "Create"), {
      timeoutMs: 120_000,
      what: `the answer "${content}" at its writer's server`,
    });
    return id;
  };

  it("serves the owner's answer to a Fediverse reply as a Note, and takes a reply to it into the thread", {
    timeout: 240_000,
  }, async () => {
    const dee = remote.actor("dee");
    const comments = async () =>
      json(await get("/api/items/science/soap/comments"), commentsResponseSchema).comments;
    expect((await deeSays(2001, "Does cold water work?")).statusCode).toBe(202);
    const byText = async (text: string) =>
      (await comments()).find((comment) => comment.content === text);
    await waitFor(async () => (await byText("Does cold water work?")) !== undefined, {
      timeoutMs: 120_000,
      what: "Dee's question under the post",
    });
    const question = await byText("Does cold water work?");
    const owner = new Owner(t);
    expect((await owner.signIn()).statusCode).toBe(200);
    const answered = await owner.post(`/api/admin/comments/${question?.id}/reply`, {
      content: "It does, more slowly.",
    });
    expect(answered.statusCode).toBe(201);
    const answerId = json(answered, commentResponseSchema).comment.id;

    // The answer, as the Fediverse asks for it: a Note in reply to Dee's post.
    const served = await get(`/fediverse/notes/${answerId}`, activityJson);
    expect(served.statusCode).toBe(200);
    expect(served.json()).toMatchObject({
      type: "Note",
      id: `${siteUrl}/fediverse/notes/${answerId}`,
      attributedTo: actorUrl,
      inReplyTo: `${dee}/statuses/2001`,
      // Mentioning Dee, as Mastodon needs to put it in Dee's notifications.
      tag: { type: "Mention", href: dee },
    });
    expect(JSON.stringify(served.json())).toContain("It does, more slowly.");
    // Where Mastodon's link to it goes, and in what language it is written (Mastodon reads it
    // from contentMap alone): the answer on its page, in English.
    const onPage = `${siteUrl}/science/soap#comment-${answerId}`;
    expect(served.json()).toMatchObject({
      url: onPage,
      contentMap: { en: expect.stringContaining("It does, more slowly.") },
    });
    // A browser at the Note's address (Mastodon's link to it, for some) gets the page.
    const browsed = await get(`/fediverse/notes/${answerId}`, "text/html");
    expect([browsed.statusCode, browsed.headers.location]).toEqual([
      302,
      onPage.replace(siteUrl, ""),
    ]);
    expect((await get(`/fediverse/notes/${question?.id}`, activityJson)).statusCode).toBe(404);
    for (const id of ["2147483648", "9999999999"]) {
      expect((await get(`/fediverse/notes/${id}`, activityJson)).statusCode, id).toBe(404);
    }

    // Dee answers the answer: it joins the thread; one to no note of ours is ignored.
    expect(
      (await deeSays(2002, "Thanks, good to know.", `${siteUrl}/fediverse/notes/${answerId}`))
        .statusCode,
    ).toBe(202);
    expect(
      (await deeSays(2003, "Lost in the post.", `${siteUrl}/fediverse/notes/x${answerId}`))
        .statusCode,
    ).toBe(202);
    await waitFor(async () => (await byText("Thanks, good to know.")) !== undefined, {
      timeoutMs: 120_000,
      what: "Dee's thanks in the thread",
    });
    expect((await byText("Thanks, good to know."))?.parentId).toBe(question?.id);
    expect(await byText("Lost in the post.")).toBeUndefined();
  });

  it("shows a writer's handle with their own server's name as its only server", {
    timeout: 240_000,
  }, async () => {
    const id = `${remote.actor("max")}/statuses/1`;
    expect((await says("max", id, "max has a question")).statusCode).toBe(202);
    expect((await commentSaying("max has a question")).remote?.handle).toBe(
      `@supportbank.example@${new URL(remote.base).host}`,
    );
  });

  it("shows a writer whose name holds a link by their handle, as the comment form refuses it", {
    timeout: 240_000,
  }, async () => {
    const id = `${remote.actor("pia")}/statuses/1`;
    expect((await says("pia", id, "pia asks about the soap")).statusCode).toBe(202);
    expect((await commentSaying("pia asks about the soap")).userName).toBe(
      `@pia@${new URL(remote.base).host}`,
    );
  });

  it("holds for the owner a reply whose writer's name and handle both read as the owner's badge", {
    timeout: 240_000,
  }, async () => {
    // "The_author_desk Rao", @the_author_desk@their.host: they can go by nothing else here.
    const id = `${remote.actor("the_author_desk")}/statuses/1`;
    expect(
      (await says("the_author_desk", id, "A badge-named account asks about the soap")).statusCode,
    ).toBe(202);
    const held = () =>
      runSql(t, "select status, user_name from science_comments where content like ?", [
        "A badge-named account asks%",
      ]);
    await waitFor(async () => (await held()).length === 1, {
      timeoutMs: 120_000,
      what: "the reply kept",
    });
    expect(await held()).toEqual([
      { status: "pending", user_name: `@the_author_desk@${new URL(remote.base).host}` },
    ]);
  });

  it("answers the thread's last writer whose reply shows, never one held for the owner", {
    timeout: 240_000,
  }, async () => {
    const dee = remote.actor("dee");
    const question = `${dee}/statuses/2121`;
    expect((await deeSays(2121, "Which soap for hard water?")).statusCode).toBe(202);
    const asked = await commentSaying("Which soap for hard water?");
    // A reply in Dee's thread, held for the owner: its writer's handle reads as the badge.
    const held = `${remote.actor("the_author_desk")}/statuses/2`;
    expect((await says("the_author_desk", held, "Ours, of course.", question)).statusCode).toBe(
      202,
    );
    const kept = () =>
      runSql(t, "select status from science_comments where content = ?", ["Ours, of course."]);
    await waitFor(async () => (await kept()).length === 1, {
      timeoutMs: 120_000,
      what: "the held reply kept",
    });
    expect(await kept()).toEqual([{ status: "pending" }]);
    const owner = new Owner(t);
    expect((await owner.signIn()).statusCode).toBe(200);
    const answered = await owner.post(`/api/admin/comments/${asked.id}/reply`, {
      content: "A soft soap, or a little washing soda.",
    });
    expect(answered.statusCode).toBe(201);
    const answer = json(answered, commentResponseSchema).comment.id;
    // The Note answers Dee, and names nothing of the reply no reader sees.
    const served = await get(`/fediverse/notes/${answer}`, activityJson);
    expect(served.statusCode).toBe(200);
    expect(served.json()).toMatchObject({ inReplyTo: question, cc: dee });
    expect(served.body).not.toContain("the_author_desk");
  });

  it("logs that a reply arrived, and none of its words", { timeout: 240_000 }, async () => {
    const dee = remote.actor("dee");
    const said = await deeSays(2201, "My neighbour at number 12 swears by lye soap");
    expect(said.statusCode).toBe(202);
    const arrived = () =>
      logs.lines.some(
        (line) => line.msg === "a Fediverse post arrived" && line.id === `${dee}/statuses/2201`,
      );
    await waitFor(async () => arrived(), { timeoutMs: 120_000, what: "the arrival logged" });
    expect(JSON.stringify(logs.lines)).not.toContain("lye soap");
  });

  it("reads a reply of 240 kB of unclosed links as quickly as any other", {
    timeout: 30_000,
  }, async () => {
    const note = `${remote.actor("dee")}/statuses/2202`;
    // Anyone's server can send it: each `<a ` was once tried to the end of the text.
    const said = await deeSays(2202, `Lye soap ${"<a ".repeat(80_000)}`);
    expect(said.statusCode).toBe(202);
    const settled = () =>
      logs.lines.some(
        (line) =>
          line.note === note &&
          ["a Fediverse reply became a comment", "a Fediverse reply was refused"].includes(
            String(line.msg),
          ),
      );
    await waitFor(async () => settled(), { timeoutMs: 20_000, what: "the reply taken or refused" });
    expect((await t.app.inject({ url: "/healthz" })).statusCode).toBe(200);
  });

  it("takes the owner's answer back from its writer's server when the owner deletes it", {
    timeout: 240_000,
  }, async () => {
    const dee = remote.actor("dee");
    expect((await deeSays(2101, "Is soap better warm?")).statusCode).toBe(202);
    const question = async () =>
      json(await get("/api/items/science/soap/comments"), commentsResponseSchema).comments.find(
        (comment) => comment.content === "Is soap better warm?",
      );
    await waitFor(async () => (await question()) !== undefined, {
      timeoutMs: 120_000,
      what: "Dee's question under the post",
    });
    const owner = new Owner(t);
    expect((await owner.signIn()).statusCode).toBe(200);
    await follows(owner, "ivy", 0);
    const objectId = (object: unknown) =>
      typeof object === "string" ? object : (object as { id?: string } | undefined)?.id;
    const arrived = (type: string, noteId: string) => () =>
      Promise.resolve(
        remote.delivered.some(
          (activity) => activity.type === type && objectId(activity.object) === noteId,
        ),
      );
    // The second answer as a version before this one recorded it: by the Note it answered alone.
    for (const recordedBefore of [false, true]) {
      const answered = await owner.post(`/api/admin/comments/${(await question())?.id}/reply`, {
        content: "Warm, yes: it dissolves the grease faster.",
      });
      expect(answered.statusCode).toBe(201);
      const id = json(answered, commentResponseSchema).comment.id;
      const noteId = `${siteUrl}/fediverse/notes/${id}`;
      await waitFor(arrived("Create", noteId), {
        timeoutMs: 120_000,
        what: "the answer at Dee's server",
      });
      if (recordedBefore) {
        await runSql(t, "update fediverse_published set digest = ? where path = ?", [
          `${dee}/statuses/2101`,
          `/notes/${id}`,
        ]);
      }

      expect((await owner.delete(`/api/admin/comments/${id}`)).statusCode).toBe(204);
      // At Dee's server, and at followers' servers, which may hold a copy of the public Note.
      await takenBack(id, "dee", "grease");
      // Its address says it is gone, and when, for servers that kept a copy; nothing of whom it answered.
      const gone = await get(`/fediverse/notes/${id}`, activityJson);
      expect(gone.statusCode).toBe(410);
      expect(gone.json()).toEqual({
        "@context": "https://www.w3.org/ns/activitystreams",
        id: noteId,
        type: "Tombstone",
        formerType: "Note",
        deleted: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      });
      expect(
        await runSql(t, "select digest from fediverse_published where path = ?", [`/notes/${id}`]),
      ).toEqual([{ digest: "" }]);
      expect((await get(`/fediverse/notes/${id + 1000}`, activityJson)).statusCode).toBe(404);
    }
  });

  it("delivers the Delete of an answer deleted as it was sent only once its writer's server took its Create", {
    timeout: 240_000,
  }, async () => {
    expect((await deeSays(2401, "Does soap kill germs?")).statusCode).toBe(202);
    const question = await commentSaying("Does soap kill germs?");
    const owner = new Owner(t);
    expect((await owner.signIn()).statusCode).toBe(200);
    // Dee's server is slow to take the answer: it answers its Create only when released.
    const from = remote.timeline.length;
    const release = remote.hold((text) => text.includes("It lifts them off."));
    const answered = await owner.post(`/api/admin/comments/${question.id}/reply`, {
      content: "It lifts them off.",
    });
    expect(answered.statusCode).toBe(201);
    const id = json(answered, commentResponseSchema).comment.id;
    try {
      await waitFor(async () => deliveredAbout(id).some(({ type }) => type === "Create"), {
        timeoutMs: 120_000,
        what: "the answer's Create at Dee's server",
      });
      expect((await owner.delete(`/api/admin/comments/${id}`)).statusCode).toBe(204);
      // The take-back is queued (after the deletion's answer: its event queues it), taken, and
      // its Deletes queued; Dee's server still holds the Create.
      const queuedDeletes = async () =>
        (await runSql(t, "select message, taken_until from fediverse_queue")).filter(
          ({ message }) =>
            String(message).includes(noteOf(id)) && String(message).includes('"type":"Delete"'),
        );
      const takingBack = async () =>
        (await runSql(t, "select 1 from fediverse_queue where message like ?", ["%ewe:take-back%"]))
          .length > 0;
      await waitFor(async () => (await queuedDeletes()).length > 0 && !(await takingBack()), {
        timeoutMs: 120_000,
        what: "the take-back taken and its Deletes queued",
      });
      // A message queued after the Deletes is taken and done: the workers passed over them,
      // which wait, untaken, behind the Create in flight.
      const after = JSON.stringify({ type: "ewe:take-back", answers: [], writer: null });
      const now = new Date().toISOString();
      await runSql(
        t,
        "insert into fediverse_queue (message, due_at, created_at) values (?, ?, ?)",
        [after, now, now],
      );
      await waitFor(
        async () =>
          (await runSql(t, "select 1 from fediverse_queue where message = ?", [after])).length ===
          0,
        { timeoutMs: 120_000, what: "a message queued after the Deletes done" },
      );
      const deletes = await queuedDeletes();
      expect(deletes.length).toBeGreaterThan(0);
      expect(deletes.filter(({ taken_until }) => taken_until !== null)).toEqual([]);
    } finally {
      release();
    }
    await waitFor(async () => deletionsOf(id).some(({ inbox }) => inbox === "/users/dee/inbox"), {
      timeoutMs: 120_000,
      what: "the answer's Delete at Dee's server",
    });
    const seen = remote.timeline.slice(from);
    expect(seen.indexOf("Create answered")).toBeGreaterThanOrEqual(0);
    expect(seen.indexOf("Delete in")).toBeGreaterThan(seen.indexOf("Create answered"));
  });

  it("delivers the Delete of an answer deleted while its Create failed only after the Create's retry", {
    timeout: 240_000,
  }, async () => {
    expect((await deeSays(2601, "Does soap work in sea water?")).statusCode).toBe(202);
    const question = await commentSaying("Does soap work in sea water?");
    const owner = new Owner(t);
    expect((await owner.signIn()).statusCode).toBe(200);
    // Dee's server is busy: it holds the answer's first Create, then refuses it (503), both
    // times Fedify knocks (it signs a refused delivery again, the other way, at once).
    const from = { arrivals: remote.arrivals.length, timeline: remote.timeline.length };
    const lather = (text: string) => text.includes("Salt stops the lather.");
    const release = remote.hold(lather);
    remote.refuse(lather, 2);
    const answered = await owner.post(`/api/admin/comments/${question.id}/reply`, {
      content: "Salt stops the lather.",
    });
    expect(answered.statusCode).toBe(201);
    const id = json(answered, commentResponseSchema).comment.id;
    const queuedAbout = async (type: string) =>
      (await runSql(t, "select message from fediverse_queue")).filter(
        ({ message }) =>
          String(message).includes(noteOf(id)) && String(message).includes(`"type":"${type}"`),
      ).length;
    try {
      await waitFor(async () => deliveredAbout(id).some(({ type }) => type === "Create"), {
        timeoutMs: 120_000,
        what: "the answer's Create at Dee's server",
      });
      expect((await owner.delete(`/api/admin/comments/${id}`)).statusCode).toBe(204);
      await waitFor(async () => (await queuedAbout("Delete")) > 0, {
        timeoutMs: 120_000,
        what: "the answer's Delete queued",
      });
    } finally {
      release();
    }
    await waitFor(
      async () =>
        deletionsOf(id).some(({ inbox }) => inbox === "/users/dee/inbox") &&
        (await queuedAbout("Delete")) + (await queuedAbout("Create")) === 0,
      { timeoutMs: 120_000, what: "the answer's deliveries done" },
    );
    // The Create, refused then retried and taken, and only then the Deletes: none undone.
    expect(remote.timeline.slice(from.timeline)).toEqual(
      expect.arrayContaining(["Create refused", "Create answered"]),
    );
    const seen = remote.arrivals
      .slice(from.arrivals)
      .filter(({ activity }) => (activity.object as { id?: string } | undefined)?.id === noteOf(id))
      .map(({ activity }) => activity.type);
    expect(seen.indexOf("Delete")).toBeGreaterThan(0);
    expect(seen.slice(seen.indexOf("Delete"))).not.toContain("Create");
  });

  it("delivers the Delete of an answer to followers' servers whose deliveries the database refused a moment", {
    timeout: 240_000,
  }, async () => {
    expect((await deeSays(2701, "Does soap go off in the sun?")).statusCode).toBe(202);
    const question = await commentSaying("Does soap go off in the sun?");
    const owner = new Owner(t);
    expect((await owner.signIn()).statusCode).toBe(200);
    const answer = await answerSent(owner, question.id, "Its scent fades; it still cleans.");
    // Five followers whose servers have no shared inbox: Fedify fans the Delete out to them
    // from one queued message, whose handler queues a delivery to each inbox.
    const fans = ["fan1", "fan2", "fan3", "fan4", "fan5"];
    for (const name of fans) {
      await runSql(
        t,
        "insert into fediverse_followers (actor_id, handle, inbox, follow_id, created_at) values (?, ?, ?, ?, ?)",
        [
          remote.actor(name),
          `@${name}@remote`,
          `${remote.actor(name)}/inbox`,
          `${remote.actor(name)}#follows/1`,
          new Date().toISOString(),
        ],
      );
    }
    // The database refuses those deliveries, as a full disk would, until the fan-out failed.
    const refused = `new.message like '%"inbox":"${remote.base}/users/fan%'`;
    const [refuse, allow] = t.databaseUrl
      ? [
          [
            "create function refuse_fans() returns trigger language plpgsql as $$ begin raise exception 'disk full'; end $$",
            `create trigger refuse_fans before insert on fediverse_queue for each row when (${refused}) execute function refuse_fans()`,
          ],
          "drop trigger if exists refuse_fans on fediverse_queue",
        ]
      : [
          [
            `create trigger refuse_fans before insert on fediverse_queue when ${refused} begin select raise(abort, 'disk full'); end`,
          ],
          "drop trigger if exists refuse_fans",
        ];
    for (const statement of refuse) await runSql(t, statement);
    const from = logs.lines.length;
    try {
      expect((await owner.delete(`/api/admin/comments/${answer}`)).statusCode).toBe(204);
      const failed = "a Fediverse queue message failed";
      await waitFor(async () => logs.lines.slice(from).some((line) => line.msg === failed), {
        timeoutMs: 120_000,
        what: "the fan-out failed",
      });
      await runSql(t, allow);
      await waitFor(
        async () =>
          fans.every((name) =>
            deletionsOf(answer).some(({ inbox }) => inbox === `/users/${name}/inbox`),
          ),
        { timeoutMs: 120_000, what: "the answer's Delete at each follower's server" },
      );
      await heldAbout(noteOf(answer));
    } finally {
      await runSql(t, allow);
      await runSql(t, "delete from fediverse_followers where actor_id like ?", [
        `${remote.base}/users/fan%`,
      ]);
    }
    // Once at each: the fan-out tried again queued none twice.
    const fanned = deletionsOf(answer).filter(({ inbox }) => inbox.startsWith("/users/fan"));
    expect(fanned.map(({ inbox }) => inbox).sort()).toEqual(
      fans.map((name) => `/users/${name}/inbox`),
    );
  });

  it("sends no Create of an answer deleted while its writer's account was looked up", {
    timeout: 240_000,
  }, async () => {
    const dee = remote.actor("dee");
    expect((await deeSays(2501, "Does soap spoil in the heat?")).statusCode).toBe(202);
    const question = await commentSaying("Does soap spoil in the heat?");
    const owner = new Owner(t);
    expect((await owner.signIn()).statusCode).toBe(200);
    // What the site kept of Dee's account has expired, and Dee's server is slow to give it again.
    await runSql(t, "delete from fediverse_kv where key = ?", [
      JSON.stringify(["_fedify", "remoteDocument", dee]),
    ]);
    const from = remote.timeline.length;
    const release = remote.hold((text) => text === "GET /users/dee");
    const answered = await owner.post(`/api/admin/comments/${question.id}/reply`, {
      content: "It keeps for years.",
    });
    expect(answered.statusCode).toBe(201);
    const id = json(answered, commentResponseSchema).comment.id;
    try {
      await waitFor(async () => remote.timeline.slice(from).includes("GET /users/dee held"), {
        timeoutMs: 120_000,
        what: "Dee's account looked up for the answer",
      });
      expect((await owner.delete(`/api/admin/comments/${id}`)).statusCode).toBe(204);
      await waitFor(async () => deletionsOf(id).some(({ inbox }) => inbox === "/users/dee/inbox"), {
        timeoutMs: 120_000,
        what: "the answer's Delete at Dee's server",
      });
    } finally {
      release();
    }
    const notSent = () =>
      logs.lines.some(
        (line) =>
          line.msg === "the owner's reply was deleted before it went out" && line.comment === id,
      );
    await waitFor(
      async () => notSent() || deliveredAbout(id).some(({ type }) => type === "Create"),
      {
        timeoutMs: 120_000,
        what: "the answer given up, or its Create at Dee's server",
      },
    );
    expect(deliveredAbout(id).map(({ type }) => type)).not.toContain("Create");
  });

  it("looks an answer's writer up through the guarded fetch alone, never by Fedify's WebFinger, which reads without limits", {
    timeout: 240_000,
  }, async () => {
    const lu = remote.actor("lu");
    expect((await says("lu", `${lu}/statuses/1`, "Is tallow soap harsh?")).statusCode).toBe(202);
    const question = await commentSaying("Is tallow soap harsh?");
    const owner = new Owner(t);
    expect((await owner.signIn()).statusCode).toBe(200);
    // Lu's account, no longer kept here, cannot be read now: Fedify's lookup then asked
    // Lu's server by WebFinger through the global fetch, which reads an answer of any size
    // for as long as it lasts (on loopback, Fedify's own check stops it, and logs so).
    await runSql(t, "delete from fediverse_kv where key = ?", [
      JSON.stringify(["_fedify", "remoteDocument", lu]),
    ]);
    remote.unreadable.add("lu");
    const from = logs.lines.length;
    try {
      const answered = await owner.post(`/api/admin/comments/${question.id}/reply`, {
        content: "Not once it has cured.",
      });
      expect(answered.statusCode).toBe(201);
      const id = json(answered, commentResponseSchema).comment.id;
      const later = () => logs.lines.slice(from);
      const webFinger = () =>
        later().filter((line) => String(line.fedify ?? "").startsWith("fedify.webfinger"));
      await waitFor(
        async () =>
          webFinger().length > 0 ||
          later().some(
            (line) =>
              line.msg === "the owner's reply found no inbox for its writer" && line.comment === id,
          ),
        { timeoutMs: 120_000, what: "the answer's writer looked for" },
      );
      expect(webFinger()).toEqual([]);
      expect(remote.timeline).toContain("GET /users/lu failed");
      expect(deliveredAbout(id)).toEqual([]);
    } finally {
      remote.unreadable.delete("lu");
    }
  });

  it("sends the owner's edit of an answer to its writer's server as an Update, and nothing for an answer never sent", {
    timeout: 240_000,
  }, async () => {
    const dee = remote.actor("dee");
    expect((await deeSays(2301, "Does soap go off?")).statusCode).toBe(202);
    const question = await commentSaying("Does soap go off?");
    const reader = await t.visitor().comment("soap", "Which soap for wool?");
    expect(reader.statusCode).toBe(201);
    const owner = new Owner(t);
    expect((await owner.signIn()).statusCode).toBe(200);
    const toDee = await answerSent(owner, question.id, "Not for years.");
    const answered = await owner.post(
      `/api/admin/comments/${json(reader, commentResponseSchema).comment.id}/reply`,
      { content: "A mild one, without enzymes." },
    );
    expect(answered.statusCode).toBe(201);
    const toReader = json(answered, commentResponseSchema).comment.id;

    // The answer to the site's own reader was never sent: its edit is not either.
    for (const [id, content] of [
      [toReader, "A mild one, without enzymes, in cool water."],
      [toDee, "Not for years, kept dry."],
    ] as const) {
      expect((await owner.patch(`/api/admin/comments/${id}`, { content })).statusCode).toBe(200);
    }
    await waitFor(
      async () => deliveredAbout(toDee).some((activity) => activity.type === "Update"),
      {
        timeoutMs: 120_000,
        what: "the edited answer at Dee's server",
      },
    );
    const update = deliveredAbout(toDee).find((activity) => activity.type === "Update");
    expect(update).toMatchObject({
      actor: actorUrl,
      cc: dee,
      object: { type: "Note", inReplyTo: `${dee}/statuses/2301`, updated: expect.any(String) },
    });
    expect(JSON.stringify(update)).toContain("Not for years, kept dry.");
    expect(deliveredAbout(toReader)).toEqual([]);
  });

  it("turns an erased account's answers into tombstones when their record names the answered post alone, wherever its server keeps posts", {
    timeout: 240_000,
  }, async () => {
    // Gus's server keeps posts apart from accounts, as Pleroma and Misskey do.
    const post = `${remote.base}/objects/7f3c`;
    expect((await says("gus", post, "Does lye soap sting?")).statusCode).toBe(202);
    const question = await commentSaying("Does lye soap sting?");
    const owner = new Owner(t);
    expect((await owner.signIn()).statusCode).toBe(200);
    const id = await answerSent(owner, question.id, "Only before it cures.");
    // Recorded as a version before writers were kept did: by the post it answered alone.
    await runSql(t, "update fediverse_published set digest = ? where path = ?", [
      post,
      `/notes/${id}`,
    ]);

    const erased = await owner.post("/api/admin/fediverse/erase", { commentId: question.id });
    expect(erased.statusCode).toBe(200);
    expect(
      await runSql(
        t,
        "select digest from fediverse_published where path = ? and deleted_at is not null",
        [`/notes/${id}`],
      ),
    ).toEqual([{ digest: "" }]);
    expect(
      await runSql(t, "select path from fediverse_published where digest like ?", ["%/objects/%"]),
    ).toEqual([]);
    const gone = await get(noteOf(id), activityJson);
    expect(gone.statusCode).toBe(410);
    expect(gone.json()).toMatchObject({ id: noteOf(id), type: "Tombstone", formerType: "Note" });
  });

  it("never serves an erased account's answer again as addressed to another writer of its thread", {
    timeout: 240_000,
  }, async () => {
    const [fay, hal] = [remote.actor("fay"), remote.actor("hal")];
    const fayPost = `${fay}/statuses/1`;
    expect((await says("fay", fayPost, "Why does soap foam?")).statusCode).toBe(202);
    const question = await commentSaying("Why does soap foam?");
    const owner = new Owner(t);
    expect((await owner.signIn()).statusCode).toBe(200);
    const toFay = await answerSent(owner, question.id, "Soap films hold air.");
    // Hal joins Fay's thread after her, and the owner answers him there.
    // His server keeps posts apart from accounts, as Pleroma and Misskey do.
    const [halPost, halText] = [`${remote.base}/objects/b41e`, "Hal's bathtub foams more."];
    expect((await says("hal", halPost, halText, fayPost)).statusCode).toBe(202);
    const halsReply = await commentSaying(halText);
    expect(halsReply.parentId).toBe(question.id);
    const toHal = await answerSent(owner, halsReply.id, "Hard water foams less, Hal.");
    expect(deliveredAbout(toHal).find((activity) => activity.type === "Create")).toMatchObject({
      cc: hal,
      object: { inReplyTo: halPost },
    });

    // Recorded as a version before writers were kept did: by the post it answered alone.
    await runSql(t, "update fediverse_published set digest = ? where path = ?", [
      halPost,
      `/notes/${toHal}`,
    ]);
    // Hal's account is deleted on his server: his answer leaves the Fediverse, naming nobody.
    const deleted = await t.app.inject(
      await remote.signed("hal", {
        id: `${hal}#delete`,
        type: "Delete",
        actor: hal,
        object: hal,
        to: ["https://www.w3.org/ns/activitystreams#Public"],
      }),
    );
    expect(deleted.statusCode).toBe(202);
    await waitFor(
      async () =>
        (await runSql(t, "select 1 from fediverse_replies where actor_id = ?", [hal])).length === 0,
      {
        timeoutMs: 120_000,
        what: "Hal's reply gone with his account",
      },
    );
    const gone = await get(noteOf(toHal), activityJson);
    expect(gone.statusCode).toBe(410);
    expect(gone.json()).toMatchObject({ id: noteOf(toHal), type: "Tombstone", formerType: "Note" });
    for (const named of ["/users/", "/objects/", "Hard water foams less", "bathtub"]) {
      expect(gone.body).not.toContain(named);
    }
    expect(
      await runSql(t, "select digest from fediverse_published where path = ?", [`/notes/${toHal}`]),
    ).toEqual([{ digest: "" }]);
    const outbox = await get("/fediverse/actors/site/outbox", activityJson);
    expect(outbox.statusCode).toBe(200);
    expect(outbox.body).not.toContain(noteOf(toHal));
    // Fay's answer still answers her.
    const kept = await get(noteOf(toFay), activityJson);
    expect(kept.statusCode).toBe(200);
    expect(kept.json()).toMatchObject({ type: "Note", inReplyTo: fayPost, cc: fay });

    // Edited or deleted now, Hal's answer goes nowhere; Fay's edit goes to her as before.
    const before = remote.delivered.length;
    const edit = (id: number, content: string) =>
      owner.patch(`/api/admin/comments/${id}`, { content });
    expect((await edit(toHal, "Hard water foams less.")).statusCode).toBe(200);
    expect((await owner.delete(`/api/admin/comments/${toHal}`)).statusCode).toBe(204);
    expect((await edit(toFay, "Soap films hold air, for a while.")).statusCode).toBe(200);
    await waitFor(
      async () => deliveredAbout(toFay).some((activity) => activity.type === "Update"),
      {
        timeoutMs: 120_000,
        what: "Fay's edited answer at her server",
      },
    );
    const since = remote.delivered.slice(before);
    expect(since.map((activity) => activity.type)).toEqual(["Update"]);
    expect(since[0]).toMatchObject({ cc: fay, object: { id: noteOf(toFay), inReplyTo: fayPost } });
  });

  /** `name` follows the site, once the owner's Followers screen lists them. */
  const follows = async (owner: Owner, name: string, n: number) => {
    const follow = {
      id: `${remote.actor(name)}#follows/${n}`,
      type: "Follow",
      actor: remote.actor(name),
      object: actorUrl,
    };
    expect((await t.app.inject(await remote.signed(name, follow))).statusCode).toBe(202);
    await waitFor(
      async () =>
        json(await owner.get("/api/admin/followers"), followersResponseSchema).followers.some(
          (one) => one.actorId === remote.actor(name),
        ),
      { timeoutMs: 120_000, what: `${name} following` },
    );
  };
  /** The Deletes of the owner's answer `id` delivered, with the inbox each went to. */
  const deletionsOf = (id: number) =>
    remote.arrivals.filter(
      ({ activity }) =>
        activity.type === "Delete" &&
        (activity.object as { id?: string } | undefined)?.id === noteOf(id),
    );
  /** The Delete names the answer, as a tombstone, and nothing of whom it answered. */
  const expectNamesNobody = (deletion: unknown, ...named: string[]) => {
    expect(deletion).toMatchObject({
      actor: actorUrl,
      cc: `${actorUrl}/followers`,
      object: { type: "Tombstone" },
    });
    for (const text of ["/users/", "/statuses/", ...named]) {
      expect(JSON.stringify(deletion)).not.toContain(text);
    }
  };
  /** The Delete of answer `id` at followers' servers (a shared inbox) and at `writer`'s, naming nobody. */
  const takenBack = async (id: number, writer: string, ...named: string[]) => {
    await waitFor(async () => deletionsOf(id).length === 2, {
      timeoutMs: 120_000,
      what: `the answer's Delete at followers' servers and at ${writer}'s`,
    });
    const inboxes = deletionsOf(id).map(({ inbox }) => inbox);
    expect(inboxes.sort()).toEqual(["/inbox", `/users/${writer}/inbox`]);
    for (const { activity } of deletionsOf(id)) expectNamesNobody(activity, ...named);
  };
  /** What the queue and Fedify's store hold that mentions `text`, once deliveries are done. */
  const heldAbout = async (text: string) => {
    const queued = async () =>
      (await runSql(t, "select message from fediverse_queue")).filter((row) =>
        String(row.message).includes(text),
      );
    await waitFor(async () => (await queued()).length === 0, {
      timeoutMs: 120_000,
      what: "the deliveries naming them done",
    });
    return (await runSql(t, "select key, value from fediverse_kv")).filter((row) =>
      `${row.key} ${row.value}`.includes(text),
    );
  };

  it("takes the owner's answer to an erased account back from its server and followers' servers, naming nobody", {
    timeout: 240_000,
  }, async () => {
    const owner = new Owner(t);
    expect((await owner.signIn()).statusCode).toBe(200);
    await follows(owner, "ivy", 1);
    const jo = remote.actor("jo");
    expect((await says("jo", `${jo}/statuses/1`, "Why does my kettle scale?")).statusCode).toBe(
      202,
    );
    const question = await commentSaying("Why does my kettle scale?");
    const answer = await answerSent(owner, question.id, "Hard water, Jo: vinegar dissolves it.");

    const erased = await owner.post("/api/admin/fediverse/erase", { commentId: question.id });
    expect(erased.statusCode).toBe(200);
    // To Ivy's server's shared inbox, as followers are sent everything, and to Jo's own.
    await takenBack(answer, "jo", "kettle", "vinegar");
    expect(await heldAbout("/users/jo")).toEqual([]);
  });

  it("takes the owner's answer to an account deleted on its server back from followers' servers", {
    timeout: 240_000,
  }, async () => {
    const owner = new Owner(t);
    expect((await owner.signIn()).statusCode).toBe(200);
    await follows(owner, "ivy", 2);
    const kim = remote.actor("kim");
    expect((await says("kim", `${kim}/statuses/1`, "Can soap go mouldy?")).statusCode).toBe(202);
    const question = await commentSaying("Can soap go mouldy?");
    const answer = await answerSent(owner, question.id, "Rarely, Kim: keep it dry.");

    const deleted = await t.app.inject(
      await remote.signed("kim", {
        id: `${kim}#delete`,
        type: "Delete",
        actor: kim,
        object: kim,
        to: ["https://www.w3.org/ns/activitystreams#Public"],
      }),
    );
    expect(deleted.statusCode).toBe(202);
    // Her account is gone, and with it where her server took deliveries for her.
    await waitFor(async () => deletionsOf(answer).length > 0, {
      timeoutMs: 120_000,
      what: "the answer's Delete at followers' servers",
    });
    expect(deletionsOf(answer).map(({ inbox }) => inbox)).toEqual(["/inbox"]);
    expectNamesNobody(deletionsOf(answer)[0]?.activity, "mouldy", "keep it dry");
    // Nothing of hers waits in the queue or Fedify's caches (Fedify marks her
    // account's Delete as processed after the inbox has forgotten her).
    const held = await heldAbout("/users/kim");
    expect(held.filter((row) => !String(row.key).includes('"activityIdempotence"'))).toEqual([]);
  });

  // Once, on SQLite: NodeInfo is the built feed's; the inbox refuses these before any statement.
  if (backend === "sqlite") {
    describe("whatever the database", () => {
      it("describes the server with NodeInfo 2.1", async () => {
        const links = z
          .object({ links: z.array(z.object({ rel: z.string(), href: z.string() })) })
          .parse((await get("/.well-known/nodeinfo")).json());
        const href = links.links.find((link) =>
          link.rel.includes("nodeinfo.diaspora.software"),
        )?.href;
        expect(href).toBe(`${siteUrl}/nodeinfo/2.1`);
        const info = z
          .object({
            software: z.object({ name: z.string() }),
            protocols: z.array(z.string()),
            openRegistrations: z.boolean(),
            usage: z.object({ localPosts: z.number() }),
          })
          .parse((await get("/nodeinfo/2.1")).json());
        expect(info).toMatchObject({ protocols: ["activitypub"], openRegistrations: false });
        expect(info.usage.localPosts).toBe(1);
      });

      it("refuses unsigned and wrongly signed inbox posts with 401", async () => {
        const follow = {
          "@context": "https://www.w3.org/ns/activitystreams",
          id: "https://mastodon.example/users/asha#follows/1",
          type: "Follow",
          actor: "https://mastodon.example/users/asha",
          object: actorUrl,
        };
        for (const path of ["/fediverse/inbox", "/fediverse/actors/site/inbox"]) {
          const unsigned = await t.app.inject({
            method: "POST",
            url: path,
            headers: { "content-type": activityJson },
            payload: JSON.stringify(follow),
          });
          expect(unsigned.statusCode).toBe(401);
          const forged = await t.app.inject({
            method: "POST",
            url: path,
            headers: {
              "content-type": activityJson,
              date: new Date().toUTCString(),
              signature:
                'keyId="https://mastodon.example/users/asha#main-key",algorithm="rsa-sha256",headers="(request-target) host date",signature="AAAA"',
            },
            payload: JSON.stringify(follow),
          });
          expect(forged.statusCode).toBe(401);
        }
      });

      it("never answers 500 to whatever is posted to its inbox", async () => {
        const bodies = [
          "",
          "{",
          "null",
          "[]",
          '{"type":"Create"}',
          '{"@context":"https://www.w3.org/ns/activitystreams","type":"Note","id":1}',
          JSON.stringify({ type: "Follow", actor: { id: ["x"] }, object: 42 }),
          "\u0000\u0001".repeat(1000),
          JSON.stringify({ deep: JSON.parse("[".repeat(500) + "]".repeat(500)) }),
          "x".repeat(300 * 1024),
        ];
        const types = [activityJson, "application/ld+json", "text/plain", "application/json"];
        for (const payload of bodies) {
          for (const type of types) {
            const answer = await t.app.inject({
              method: "POST",
              url: "/fediverse/inbox",
              headers: { "content-type": type, signature: 'keyId="http://127.0.0.1:1/k"' },
              payload,
              // Its own address: each refusal counts against it (the tests after post from theirs).
              remoteAddress: "203.0.113.50",
            });
            expect(answer.statusCode, `${type} ${payload.slice(0, 40)}`).toBeGreaterThanOrEqual(
              400,
            );
            expect(answer.statusCode, `${type} ${payload.slice(0, 40)}`).toBeLessThan(500);
          }
        }
      });
    });
  }

  it("refuses, before processing it, JSON-LD that would hold the server: a thousand terms or levels, or 10,000 values", {
    timeout: 240_000,
  }, async () => {
    const dee = remote.actor("dee");
    const like = (tag: string, context: unknown) => ({
      "@context": context,
      id: `${dee}/likes/${tag}`,
      type: "Like",
      actor: dee,
      object: `${siteUrl}/fediverse/items/science/soap`,
    });
    const wide = ["https://www.w3.org/ns/activitystreams", wideContext(1000)];
    const deep = JSON.parse(`${"[".repeat(1000)}${"]".repeat(1000)}`);
    const posts = {
      // 35 kB: JSON-LD's processing held the whole server seconds, before the signature's 401.
      "unsigned, a thousand terms": {
        method: "POST" as const,
        url: "/fediverse/inbox",
        headers: { "content-type": activityJson },
        payload: JSON.stringify({
          ...like("unsigned", wide),
          signature: { type: "RsaSignature2017", creator: `${dee}#main-key`, signatureValue: "AA" },
        }),
      },
      // 200 kB, 10,000 values: read as JSON-LD, at a second of CPU each, before the signature's 401.
      "unsigned, 2,500 mentions": {
        method: "POST" as const,
        url: "/fediverse/inbox",
        headers: { "content-type": activityJson },
        payload: JSON.stringify({
          ...like("mentions", "https://www.w3.org/ns/activitystreams"),
          tag: Array.from({ length: 2500 }, (_, at) => ({
            type: "Mention",
            href: `https://a.example/users/u${at}`,
            name: `@u${at}@a.example`,
          })),
          signature: { type: "RsaSignature2017", creator: `${dee}#main-key`, signatureValue: "AA" },
        }),
      },
      "signed, a thousand terms": await remote.signed("dee", like("wide", wide)),
      "signed, a thousand terms in its context's document": await remote.signed(
        "dee",
        like("remote", ["https://www.w3.org/ns/activitystreams", `${remote.base}/contexts/wide`]),
      ),
      "signed, a thousand levels": await remote.signed("dee", {
        ...like("deep", "https://www.w3.org/ns/activitystreams"),
        tag: deep,
      }),
    };
    for (const [what, post] of Object.entries(posts)) {
      expect((await t.app.inject(post)).statusCode, what).toBe(400);
    }
    // A like as Mastodon sends it still counts.
    const liked = await remote.signed(
      "dee",
      like("plain", "https://www.w3.org/ns/activitystreams"),
    );
    expect((await t.app.inject(liked)).statusCode).toBe(202);
  });

  it("answers an address whose posts were refused ten times this minute without reading the rest", async () => {
    const dee = remote.actor("dee");
    const from = { remoteAddress: "203.0.113.9" };
    const unsigned = (at: number) => ({
      method: "POST" as const,
      url: "/fediverse/inbox",
      headers: { "content-type": activityJson },
      payload: JSON.stringify({
        "@context": "https://www.w3.org/ns/activitystreams",
        id: `${dee}/likes/forged-${at}`,
        type: "Like",
        actor: dee,
        object: `${siteUrl}/fediverse/items/science/soap`,
      }),
      ...from,
    });
    const first = Date.now();
    for (let at = 0; at < 11; at++) {
      expect((await t.app.inject(unsigned(at))).statusCode, `post ${at}`).toBe(401);
    }
    const next = await t.app.inject(unsigned(11));
    expect(next.statusCode).toBe(429);
    // The rest of the minute that began with the first refusal: 60 s, less the seconds the
    // eleven posts took (over one on a loaded machine).
    const elapsed = Math.floor((Date.now() - first) / 1000);
    expect(Number(next.headers["retry-after"])).toBeGreaterThanOrEqual(60 - elapsed);
    expect(Number(next.headers["retry-after"])).toBeLessThanOrEqual(60);
    // Another address's posts are read as before.
    const liked = await remote.signed("dee", {
      "@context": "https://www.w3.org/ns/activitystreams",
      id: `${dee}/likes/after-forged`,
      type: "Like",
      actor: dee,
      object: `${siteUrl}/fediverse/items/science/soap`,
    });
    expect((await t.app.inject(liked)).statusCode).toBe(202);
  });
});

describe.each(backends)("the owner's picture as the actor's icon, on %s", (backend) => {
  /** An app whose owner's profile has this picture, and its actor as served. */
  async function withPicture(src: string, contentRoot?: string) {
    const t = await startTestApp(backend, {
      env: { FEDIVERSE_HANDLE: "arjun" },
      ...(contentRoot ? { contentRoot } : {}),
      ownerProfile: { ...readOwnerProfile(), photo: { src, alt: "Arjun", width: 48, height: 48 } },
    });
    const actor = await t.app.inject({
      url: "/fediverse/actors/site",
      headers: { accept: activityJson },
    });
    expect(actor.statusCode).toBe(200);
    return { t, actor: actor.json() };
  }

  it("is served from the site as the actor's icon when it is a photograph (PNG)", {
    timeout: 240_000,
  }, async () => {
    const contentRoot = mkdtempSync(path.join(os.tmpdir(), "ewe-owner-"));
    mkdirSync(path.join(contentRoot, "images", "owner"), { recursive: true });
    const portrait = new Resvg(
      '<svg xmlns="http://www.w3.org/2000/svg" width="48" height="48"><circle cx="24" cy="24" r="20" fill="#0ea5e9"/></svg>',
    )
      .render()
      .asPng();
    writeFileSync(path.join(contentRoot, "images", "owner", "portrait.png"), portrait);
    const { t, actor } = await withPicture("owner/portrait.png", contentRoot);
    try {
      const person = actorSchema
        .extend({ icon: z.object({ type: z.string(), url: z.string(), mediaType: z.string() }) })
        .parse(actor);
      expect(person.icon).toEqual({
        type: "Image",
        url: `${siteUrl}/fediverse/picture`,
        mediaType: "image/png",
      });
      const picture = await t.app.inject({ url: "/fediverse/picture" });
      expect(picture.statusCode).toBe(200);
      expect(picture.headers["content-type"]).toBe("image/png");
      expect(picture.rawPayload.equals(portrait)).toBe(true);
    } finally {
      await t.close();
      rmSync(contentRoot, { recursive: true, force: true });
    }
  });

  it("is not offered when it is a drawing (SVG), which Fediverse servers do not take as an avatar", {
    timeout: 240_000,
  }, async () => {
    const { t, actor } = await withPicture("science/soap.svg");
    try {
      const person = actorSchema.extend({ icon: z.unknown().optional() }).parse(actor);
      expect(person.icon).toBeUndefined();
      expect((await t.app.inject({ url: "/fediverse/picture" })).statusCode).toBe(404);
    } finally {
      await t.close();
    }
  });
});

describe("the setting that lets the Fediverse reach private addresses", () => {
  it("is refused outside tests", () => {
    for (const NODE_ENV of ["production", "development"]) {
      expect(() => loadConfig({ NODE_ENV, ALLOW_PRIVATE_ADDRESSES_IN_TESTS: "on" })).toThrow(
        /ALLOW_PRIVATE_ADDRESSES_IN_TESTS: is for tests only/,
      );
    }
    expect(
      loadConfig({ NODE_ENV: "test", ALLOW_PRIVATE_ADDRESSES_IN_TESTS: "on" })
        .ALLOW_PRIVATE_ADDRESSES_IN_TESTS,
    ).toBe(true);
  });

  it("makes the handle from the owner's name unless one is given", () => {
    expect(
      loadConfig({ NODE_ENV: "test", SITE_OWNER_NAME: "Zoë Ann O'Neil" }).fediverseHandle,
    ).toBe("zoe_ann_o_neil");
    expect(() => loadConfig({ NODE_ENV: "test", FEDIVERSE_HANDLE: "no spaces" })).toThrow(
      /FEDIVERSE_HANDLE/,
    );
  });
});
