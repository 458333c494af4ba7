import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { commentsResponseSchema } from "../../contract/api.ts";
import { waitFor } from "../support/wait-for.ts";
import { remoteAccountKeys } from "./support/remote-keys.ts";
import { runSql } from "./support/sql.ts";
import { misskeyServer } from "./support/stand-in-server.ts";
import {
  backends,
  json,
  siteUrl,
  soapFeed,
  startTestApp,
  type TestApp,
} from "./support/test-app.ts";

/*
 * The inbox checks a post's HTTP signature before anything reads it as
 * JSON-LD. A stand-in Misskey server on loopback counts what the site asks
 * of it: its accounts (with their keys), and a context of its own that only
 * JSON-LD's processing of a post would fetch. A post unsigned, or signed
 * wrongly, is refused 401 having fetched no context; an account whose key
 * changed is fetched once more and its post taken; a post with 300 custom
 * emoji, as Misskey sends them, is taken. A forgery checked while its
 * account's server is down leaves the key kept for the account's own posts. A post whose signature cannot be
 * read counts against its address as a refused one. Keys at one host whose posts are refused are
 * fetched a few a minute for one network; refusals are counted by an IPv6 /48 too.
 */

const activityJson = "application/activity+json";
const soap = `${siteUrl}/fediverse/items/science/soap`;
const public_ = "https://www.w3.org/ns/activitystreams#Public";

describe.each(backends)("the inbox's signature check, on %s", (backend) => {
  let t: TestApp;
  let remote: Awaited<ReturnType<typeof misskeyServer>>;
  beforeAll(async () => {
    remote = await misskeyServer();
    t = await startTestApp(backend, {
      // The other server is on loopback: the tests' setting lets the site reach it.
      env: { FEDIVERSE_HANDLE: "arjun", ALLOW_PRIVATE_ADDRESSES_IN_TESTS: "on" },
      clientFiles: {
        "feed.json": JSON.stringify(soapFeed),
        "science/soap/index.html": "<!doctype html><title>Soap</title>",
      },
    });
  });
  afterAll(async () => {
    await t?.close();
    remote?.close();
  });

  const contextsAsked = () => remote.asked.filter((line) => line.includes("/contexts/")).length;
  const accountAsked = (name: string) =>
    remote.asked.filter((line) => line === `GET /users/${name}`).length;
  /** A like of the soap post, in a context that names the stand-in's own document. */
  const like = (name: string, tag: string) => ({
    "@context": ["https://www.w3.org/ns/activitystreams", `${remote.base}/contexts/misskey`],
    id: `${remote.actor(name)}/likes/${tag}`,
    type: "Like",
    actor: remote.actor(name),
    object: soap,
  });

  // The first post loads Fedify: seconds, or a minute on a machine busy with other tests.
  it("refuses a post unsigned or wrongly signed with 401, without reading it as JSON-LD", {
    timeout: 240_000,
  }, async () => {
    await remote.newKey("ann");
    const ldSignature = {
      type: "RsaSignature2017",
      creator: `${remote.actor("ann")}#main-key`,
      created: new Date().toISOString(),
      signatureValue: "AAAA",
    };
    const unsigned = (activity: Record<string, unknown>) => ({
      method: "POST" as const,
      url: "/fediverse/inbox",
      headers: { "content-type": activityJson },
      payload: JSON.stringify(activity),
    });
    const forged = await remote.signed("ann", like("ann", "forged"), await remoteAccountKeys());
    const posts = {
      unsigned: unsigned(like("ann", "unsigned")),
      // A Linked Data signature alone: Fedify would read the post as JSON-LD to check it.
      "unsigned, with a Linked Data signature": unsigned({
        ...like("ann", "ld"),
        signature: ldSignature,
      }),
      "signed by another key than the account's": forged,
      "signed, then changed": { ...forged, payload: forged.payload.replace("forged", "changed") },
    };
    for (const [what, post] of Object.entries(posts)) {
      expect((await t.app.inject(post)).statusCode, what).toBe(401);
    }
    // A signature whose date is no date cannot be checked: 400, never a 500.
    const undated = await remote.signed("ann", like("ann", "undated"));
    const garbled = { ...undated, headers: { ...undated.headers, date: "the day after" } };
    expect((await t.app.inject(garbled)).statusCode).toBe(400);
    expect(contextsAsked()).toBe(0);
    // The same like, signed with the account's key, is read: its context too.
    expect((await t.app.inject(await remote.signed("ann", like("ann", "signed")))).statusCode).toBe(
      202,
    );
    expect(contextsAsked()).toBeGreaterThan(0);
  });

  it("answers a post of one array of 130,000 values, within the size taken, with a 4xx, never a 500", async () => {
    // More values than one call of a function takes as arguments, which the checks before
    // the signature's passed so: it threw.
    const payload = `[${"0,".repeat(130_000)}0]`;
    expect(payload.length).toBeLessThan(256 * 1024);
    const answer = await t.app.inject({
      method: "POST",
      url: "/fediverse/inbox",
      headers: { "content-type": activityJson },
      payload,
    });
    expect(answer.statusCode).toBe(400);
  });

  it("takes a post signed with an account's new key, fetching the account once more, and no more for forgeries", async () => {
    const bo = "bo";
    await remote.newKey(bo);
    expect((await t.app.inject(await remote.signed(bo, like(bo, "old-key")))).statusCode).toBe(202);
    expect(accountAsked(bo)).toBe(1);
    // Bo's server makes a new key: the site's copy of the old one no longer verifies.
    await remote.newKey(bo);
    expect((await t.app.inject(await remote.signed(bo, like(bo, "new-key")))).statusCode).toBe(202);
    expect(accountAsked(bo)).toBe(2);
    // Forged posts naming Bo's key are refused against the key fetched, fetching it no more.
    for (const at of [1, 2, 3]) {
      const forged = await remote.signed(bo, like(bo, `forged-${at}`), await remoteAccountKeys());
      expect((await t.app.inject(forged)).statusCode, `forgery ${at}`).toBe(401);
    }
    expect(accountAsked(bo)).toBe(2);
    // Bo's own posts still count.
    expect((await t.app.inject(await remote.signed(bo, like(bo, "later")))).statusCode).toBe(202);
  });

  it("keeps a key it read for a day, not for ever", async () => {
    const fay = "fay";
    await remote.newKey(fay);
    expect((await t.app.inject(await remote.signed(fay, like(fay, "kept")))).statusCode).toBe(202);
    const [row] = await runSql(t, "select expires_at from fediverse_kv where key = ?", [
      JSON.stringify(["_fedify", "publicKey", `${remote.actor(fay)}#main-key`]),
    ]);
    const expires = Date.parse(String((row as { expires_at: unknown }).expires_at));
    expect(expires - Date.now()).toBeGreaterThan(23 * 3_600_000);
    expect(expires - Date.now()).toBeLessThanOrEqual(24 * 3_600_000);
  });

  it("keeps an account's key when a forgery naming it is checked while its server is down", async () => {
    const di = "di";
    await remote.newKey(di);
    expect((await t.app.inject(await remote.signed(di, like(di, "first")))).statusCode).toBe(202);
    remote.setDown(true);
    const forged = await remote.signed(di, like(di, "forged"), await remoteAccountKeys());
    expect((await t.app.inject(forged)).statusCode).toBe(401);
    // The key was asked for again, and the server did not answer it.
    expect(accountAsked(di)).toBe(2);
    remote.setDown(false);
    // Di's own next post is taken with the key kept, not refused for ten minutes.
    expect((await t.app.inject(await remote.signed(di, like(di, "later")))).statusCode).toBe(202);
  });

  it("takes a reply from Misskey with 300 custom emoji", { timeout: 240_000 }, async () => {
    const cy = "cy";
    await remote.newKey(cy);
    const note = `${remote.actor(cy)}/notes/9zz1`;
    const emoji = Array.from({ length: 300 }, (_, at) => ({
      id: `${remote.base}/emojis/blob${at}`,
      type: "Emoji",
      name: `:blob${at}:`,
      updated: "2026-01-01T00:00:00.000Z",
      icon: { type: "Image", mediaType: "image/png", url: `${remote.base}/files/blob${at}.png` },
    }));
    // Misskey's context: its extensions inline.
    const context = [
      "https://www.w3.org/ns/activitystreams",
      "https://w3id.org/security/v1",
      {
        Key: "sec:Key",
        manuallyApprovesFollowers: "as:manuallyApprovesFollowers",
        sensitive: "as:sensitive",
        Hashtag: "as:Hashtag",
        quoteUrl: "as:quoteUrl",
        toot: "http://joinmastodon.org/ns#",
        Emoji: "toot:Emoji",
        featured: "toot:featured",
        discoverable: "toot:discoverable",
        schema: "http://schema.org#",
        PropertyValue: "schema:PropertyValue",
        value: "schema:value",
        misskey: "https://misskey-hub.net/ns#",
        _misskey_content: "misskey:_misskey_content",
        _misskey_quote: "misskey:_misskey_quote",
        _misskey_reaction: "misskey:_misskey_reaction",
        _misskey_votes: "misskey:_misskey_votes",
        _misskey_summary: "misskey:_misskey_summary",
        isCat: "misskey:isCat",
        vcard: "http://www.w3.org/2006/vcard/ns#",
      },
    ];
    // A server lists each emoji a post's text, its writer's name or a reaction uses.
    const text = `Cy's soap foams ${emoji
      .slice(0, 3)
      .map((one) => one.name)
      .join(" ")}, as hard water does not.`;
    const posted = await t.app.inject(
      await remote.signed(cy, {
        "@context": context,
        id: `${note}/activity`,
        type: "Create",
        actor: remote.actor(cy),
        published: "2026-12-01T10:00:00.000Z",
        to: [public_],
        cc: [`${remote.actor(cy)}/followers`],
        object: {
          id: note,
          type: "Note",
          attributedTo: remote.actor(cy),
          inReplyTo: soap,
          content: `<p>${text}</p>`,
          _misskey_content: text,
          source: { content: text, mediaType: "text/x.misskeymarkdown" },
          published: "2026-12-01T10:00:00.000Z",
          to: [public_],
          cc: [`${remote.actor(cy)}/followers`],
          attachment: [],
          sensitive: false,
          tag: emoji,
        },
      }),
    );
    expect(posted.statusCode).toBe(202);
    const cys = async () =>
      json(
        await t.app.inject({ method: "GET", url: "/api/items/science/soap/comments" }),
        commentsResponseSchema,
      ).comments.find((comment) => comment.content.startsWith("Cy's soap foams"));
    await waitFor(async () => (await cys()) !== undefined, {
      timeoutMs: 120_000,
      what: "Cy's reply under the post",
    });
  });

  // Once, on SQLite: refused by the key id's length before any statement or fetch.
  if (backend === "sqlite") {
    describe("whatever the database", () => {
      it("refuses a key id longer than an address unread, and fetches nothing for it", async () => {
        await remote.newKey("eve");
        const post = await remote.signed("eve", like("eve", "long-key"));
        const keyId = `${remote.actor("eve")}#${"k".repeat(2_000)}`;
        const signature = post.headers.signature?.replace(/keyId="[^"]*"/, `keyId="${keyId}"`);
        // From an address of its own, so that the refusal counts against it alone.
        const answer = await t.app.inject({
          ...post,
          headers: { ...post.headers, signature },
          remoteAddress: "203.0.113.9",
        });
        expect(answer.statusCode).toBe(401);
        expect(answer.json().error.message).toMatch(/key id is too long/);
        expect(accountAsked("eve")).toBe(0);
      });
    });
  }

  it("fetches a few keys a minute at one host for a network whose posts are refused, and takes an honest server's rotated key at once", async () => {
    await remote.newKey("hal");
    const variants: number[] = [];
    for (const at of [1, 2, 3, 4, 5, 6, 7, 8]) {
      // Hal's own signature, naming a key id of the sender's choosing: each one never seen.
      const post = await remote.signed("hal", like("hal", `variant-${at}`));
      const keyId = `${remote.actor("hal")}?n=${at}#main-key`;
      const signature = post.headers.signature?.replace(/keyId="[^"]*"/, `keyId="${keyId}"`);
      const answer = await t.app.inject({
        ...post,
        headers: { ...post.headers, signature },
        remoteAddress: "203.0.113.30",
      });
      variants.push(answer.statusCode);
    }
    expect(variants).toEqual([401, 401, 401, 401, 401, 429, 429, 429]);
    expect(remote.asked.filter((line) => line.startsWith("GET /users/hal?n=")).length).toBe(5);
    // Another network's account at the same host, its key new, then rotated: taken each time.
    const ivy = "ivy";
    const fromIvy = async (tag: string) =>
      (
        await t.app.inject({
          ...(await remote.signed(ivy, like(ivy, tag))),
          remoteAddress: "198.51.100.7",
        })
      ).statusCode;
    await remote.newKey(ivy);
    expect(await fromIvy("first")).toBe(202);
    await remote.newKey(ivy);
    expect(await fromIvy("rotated")).toBe(202);
    expect(accountAsked(ivy)).toBe(2);
  });

  it("counts refusals by an IPv6 /48 as well as by its /64s", async () => {
    const unsigned = (remoteAddress: string) =>
      t.app.inject({
        method: "POST",
        url: "/fediverse/inbox",
        headers: { "content-type": activityJson },
        payload: JSON.stringify(like("nobody", "unsigned")),
        remoteAddress,
      });
    // Ten refusals in each of ten /64s of one /48: a hundred.
    for (let subnet = 1; subnet <= 10; subnet += 1) {
      for (let at = 1; at <= 10; at += 1) {
        expect((await unsigned(`2001:db8:48:${subnet}::${at}`)).statusCode).toBe(401);
      }
    }
    // Past a hundred and one, the rest of its minute is refused unread, whichever /64 it comes from.
    expect((await unsigned("2001:db8:48:fe::1")).statusCode).toBe(401);
    expect((await unsigned("2001:db8:48:ff::1")).statusCode).toBe(429);
    expect((await unsigned("2001:db8:49:1::1")).statusCode).toBe(401);
  });

  // Last: it spends the minute's refusals of the tests' one address.
  it("counts a post whose signature cannot be read as refused, so its address is soon refused unread", {
    timeout: 240_000,
  }, async () => {
    const names = Array.from({ length: 12 }, (_, at) => `garbled${at}`);
    const answers: number[] = [];
    for (const name of names) {
      await remote.newKey(name);
      const post = await remote.signed(name, like(name, "garbled"));
      // A signature that is no base64 is read only once its key is fetched, and then throws.
      const signature = post.headers.signature?.replace(/signature="[^"]*"/, 'signature="!!!!"');
      const garbled = { ...post, headers: { ...post.headers, signature } };
      answers.push((await t.app.inject(garbled)).statusCode);
    }
    expect(answers[0]).toBe(400);
    expect(answers.at(-1)).toBe(429);
    // Each named a key the site had not seen: the one refused unread was not fetched.
    expect(accountAsked(names[0]!)).toBe(1);
    expect(accountAsked(names.at(-1)!)).toBe(0);
  });
});
