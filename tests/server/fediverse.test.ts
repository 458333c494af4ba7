import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { auditResponseSchema } from "../../contract/console.ts";
import { followersResponseSchema, mentionsResponseSchema } from "../../contract/fediverse.ts";
import { loadConfig } from "../../server/config.ts";
import { admin, adminEnv } from "./support/admin.ts";
import { Owner } from "./support/owner.ts";
import { backends, json, siteUrl, startTestApp, type TestApp } from "./support/test-app.ts";

/*
 * The site as an ActivityPub actor, through inject on both databases: found
 * by WebFinger and NodeInfo, its actor and Articles as JSON for whoever asks
 * for JSON and pages for browsers, and an inbox that refuses what is not
 * signed, and never answers 500 to whatever is posted to it.
 */

const activityJson = "application/activity+json";
const actorUrl = `${siteUrl}/fediverse/actors/site`;

const feed = {
  version: "https://jsonfeed.org/version/1.1",
  items: [
    {
      id: `${siteUrl}/science/soap`,
      url: `${siteUrl}/science/soap`,
      title: "How does soap clean?",
      summary: "Soap molecules hold on to grease with one end and to water with the other.",
      content_html:
        "<p>Soap molecules hold on to grease with one end and to water with the other.</p>",
      image: `${siteUrl}/og/science/soap.png`,
      date_published: "2026-05-01T00:00:00.000Z",
      date_modified: "2026-05-02T00:00:00.000Z",
    },
  ],
};

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
});

describe.each(backends)("the site on the Fediverse, on %s", (backend) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(backend, {
      env: { FEDIVERSE_HANDLE: "arjun" },
      clientFiles: {
        "feed.json": JSON.stringify(feed),
        "about/index.html": "<!doctype html><title>About</title>",
        "science/soap/index.html": "<!doctype html><title>Soap</title>",
      },
    });
  });
  afterAll(() => t?.close());

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

  it("describes the server with NodeInfo 2.1", async () => {
    const links = z
      .object({ links: z.array(z.object({ rel: z.string(), href: z.string() })) })
      .parse((await get("/.well-known/nodeinfo")).json());
    const href = links.links.find((link) => link.rel.includes("nodeinfo.diaspora.software"))?.href;
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

  it("gives each item as an Article, and its page to a browser", async () => {
    const article = articleSchema.parse(
      (await get("/fediverse/items/science/soap", activityJson)).json(),
    );
    expect(article.content).toContain("Soap molecules");
    // The item's own page, asked for as JSON, is the same Article.
    expect(articleSchema.parse((await get("/science/soap", activityJson)).json()).id).toBe(
      article.id,
    );
    expect((await get("/science/soap", "text/html")).body).toContain("<title>Soap</title>");
    expect((await get("/fediverse/items/science/nothing", activityJson)).statusCode).toBe(404);
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
    expect(await followers()).toEqual({ followers: [], blocks: [] });
    const block = (target: string) => owner.post("/api/admin/fediverse/block", { target });
    expect((await block("@troll@spam.example.net")).statusCode).toBe(204);
    expect((await block("spam.example.net")).statusCode).toBe(409);
    expect((await block("not a server!")).statusCode).toBe(400);
    expect((await block("")).statusCode).toBe(400);
    expect((await followers()).blocks.map((one) => one.target)).toEqual(["spam.example.net"]);
    const unblock = (target: string) => owner.post("/api/admin/fediverse/unblock", { target });
    expect((await unblock("spam.example.net")).statusCode).toBe(204);
    expect((await unblock("spam.example.net")).statusCode).toBe(404);
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
        });
        expect(answer.statusCode, `${type} ${payload.slice(0, 40)}`).toBeGreaterThanOrEqual(400);
        expect(answer.statusCode, `${type} ${payload.slice(0, 40)}`).toBeLessThan(500);
      }
    }
  });
});

describe("the setting that lets the Fediverse reach private addresses", () => {
  it("is refused outside tests", () => {
    for (const NODE_ENV of ["production", "development"]) {
      expect(() =>
        loadConfig({ NODE_ENV, FEDIVERSE_ALLOW_PRIVATE_ADDRESSES_IN_TESTS: "on" }),
      ).toThrow(/FEDIVERSE_ALLOW_PRIVATE_ADDRESSES_IN_TESTS: is for tests only/);
    }
    expect(
      loadConfig({ NODE_ENV: "test", FEDIVERSE_ALLOW_PRIVATE_ADDRESSES_IN_TESTS: "on" })
        .FEDIVERSE_ALLOW_PRIVATE_ADDRESSES_IN_TESTS,
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
