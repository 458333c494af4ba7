import { mkdtempSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { commentsResponseSchema } from "../../contract/api.ts";
import { fragment } from "../support/built-site.ts";
import { waitFor } from "../support/wait-for.ts";
import { admin, adminEnv } from "./support/admin.ts";
import { injected, remoteAccountKeys } from "./support/remote-keys.ts";
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
 * Correctly signed activities whose content is hostile: an account that likes
 * one item again and again under new ids, and one that claims the address of
 * another server's post or like as its own. Each counts once, as its own,
 * and a claim does not keep the other server's own post or like out; and a
 * post whose Delete arrives before it (the queue's workers take both at once,
 * or its server retries the Create), which is never shown, while another
 * account's Delete of it keeps nothing out. Names and posts the comment form
 * would refuse: a name is shown as far as the form takes it, a post only as
 * the form would take it, so the site's own export reads back in. And a reply
 * meant for its addressees alone, which no reader of the site sees.
 */

const soap = `${siteUrl}/fediverse/items/science/soap`;
/** Addressed to everyone, as a public post is. */
const publicly = { to: ["https://www.w3.org/ns/activitystreams#Public"] };
const garuda = `${siteUrl}/fediverse/items/mythology/garuda`;
/** Each letter of `text` with `marks` acute accents on it. */
const marked = (text: string, marks: number) =>
  [...text].map((letter) => `${letter}${"\u0301".repeat(marks)}`).join("");

describe.each(backends)("hostile activities, correctly signed, on %s", (backend) => {
  let t: TestApp;
  let evil: Awaited<ReturnType<typeof misskeyServer>>;
  let honest: Awaited<ReturnType<typeof misskeyServer>>;
  beforeAll(async () => {
    [evil, honest] = [await misskeyServer(), await misskeyServer()];
    await evil.newKey("mal");
    await honest.newKey("vic");
    // Display names of 30 letters of a fancy alphabet (each two UTF-16 units), of a blank
    // character alone (U+3164, which Mastodon takes), and with 20 marks on each letter.
    await honest.newKey("fancy", "\u{1D4D0}\u{1D4FC}\u{1D4F1}\u{1D4EA} ".repeat(6));
    await honest.newKey("blank", "\u3164");
    await honest.newKey("zalgo", marked("Zalgo", 20));
    t = await startTestApp(backend, {
      // The other servers are on loopback: the tests' setting lets the site reach them.
      env: {
        FEDIVERSE_HANDLE: "arjun",
        ALLOW_PRIVATE_ADDRESSES_IN_TESTS: "on",
        MODERATION: "off",
      },
      clientFiles: {
        "feed.json": JSON.stringify(soapFeed),
        "science/soap/index.html": "<!doctype html><title>Soap</title>",
        "mythology/garuda/index.html": `<!doctype html><title>Garuda</title><main>${fragment("mythology:garuda", "summary", "Garuda")}</main>`,
      },
    });
  });
  afterAll(async () => {
    await t?.close();
    evil?.close();
    honest?.close();
  });
  const mal = () => evil.actor("mal");
  const vic = () => honest.actor("vic");
  const queueDone = async () => (await runSql(t, "select 1 from fediverse_queue")).length === 0;
  const sent = async (server: typeof evil, name: string, activities: Record<string, unknown>[]) => {
    for (const activity of activities) {
      const answer = await t.app.inject(await server.signed(name, activity));
      expect(answer.statusCode, JSON.stringify(activity)).toBe(202);
    }
    await waitFor(queueDone, { timeoutMs: 120_000, what: "the activities handled" });
  };
  const fromFediverse = async () =>
    /(\d+) from the Fediverse/.exec(
      (await t.app.inject({ method: "GET", url: "/mythology/garuda" })).body,
    )?.[1];
  /** The site's export, as the owner's command line writes it, reads back in without a word. */
  const exportReadsBack = async () => {
    const exported = path.join(mkdtempSync(path.join(os.tmpdir(), "ewe-hostile-")), "site.json");
    expect((await admin(adminEnv(t), "export", "--out", exported)).code).toBe(0);
    const dry = await admin(adminEnv(t), "import", "--from", "export", "--dry-run", exported);
    expect(dry.stderr).toBe("");
    expect(dry.code).toBe(0);
  };
  const replies = async () =>
    json(
      await t.app.inject({ method: "GET", url: "/api/items/science/soap/comments" }),
      commentsResponseSchema,
    ).comments.map((comment) => [comment.remote?.handle.split("@")[1], comment.content]);

  // The first post loads Fedify: seconds, or a minute on a machine busy with other tests.
  it("counts an account's like and boost of an item once, whatever ids it sends them under", {
    timeout: 240_000,
  }, async () => {
    const again = (type: string, times: number) =>
      Array.from({ length: times }, (_, at) => ({
        id: `${mal()}/${type}s/${at}`,
        type,
        actor: mal(),
        object: garuda,
      }));
    await sent(evil, "mal", [...again("Like", 5), ...again("Announce", 3)]);
    expect(await fromFediverse()).toBe("2");
    // Another account's like counts; the first like undone leaves one account's boost.
    await sent(honest, "vic", [
      { id: `${vic()}/likes/1`, type: "Like", actor: vic(), object: garuda },
    ]);
    expect(await fromFediverse()).toBe("3");
    const undo = { id: `${mal()}/undo/1`, type: "Undo", actor: mal(), object: again("Like", 1)[0] };
    await sent(evil, "mal", [undo]);
    expect(await fromFediverse()).toBe("2");
  });

  it("takes no post or like whose address is at another server than its signer's, and takes that server's own", {
    timeout: 240_000,
  }, async () => {
    const post = `${vic()}/notes/9`;
    const like = `${vic()}/likes/9`;
    const note = (by: string, content: string) => ({
      id: post,
      type: "Note",
      attributedTo: by,
      inReplyTo: soap,
      ...publicly,
      content: `<p>${content}</p>`,
    });
    // The Create at the other server too, so that Fedify takes the Note inside it as it is.
    await sent(evil, "mal", [
      { id: `${post}/claimed`, type: "Create", actor: mal(), object: note(mal(), "Claimed") },
      { id: like, type: "Like", actor: mal(), object: soap },
    ]);
    expect(await replies()).toEqual([]);
    // Fedify takes an activity's id once a day, whoever sent it: the claims never reached it,
    // so the post's and the like's own server sends them the same day, and they are taken.
    await sent(honest, "vic", [
      { id: `${post}/activity`, type: "Create", actor: vic(), object: note(vic(), "Mine") },
      { id: like, type: "Like", actor: vic(), object: soap },
    ]);
    expect(await replies()).toEqual([["vic", "Mine"]]);
    expect(
      await runSql(t, "select actor_id from fediverse_reactions where activity_id = ?", [like]),
    ).toEqual([{ actor_id: vic() }]);
  });

  it("never shows a post whose Delete came before it, and takes no Delete of it from another account", {
    timeout: 240_000,
  }, async () => {
    const note = (server: typeof evil, name: string, at: number, content: string) => ({
      id: `${server.actor(name)}/notes/${at}`,
      type: "Note",
      attributedTo: server.actor(name),
      inReplyTo: soap,
      ...publicly,
      content: `<p>${content}</p>`,
    });
    const create = (server: typeof evil, name: string, at: number, content: string) => ({
      id: `${server.actor(name)}/notes/${at}/activity`,
      type: "Create",
      actor: server.actor(name),
      object: note(server, name, at, content),
    });
    const deletion = (server: typeof evil, name: string, of: string) => ({
      id: `${of}/delete/${server.actor(name)}`,
      type: "Delete",
      actor: server.actor(name),
      object: { id: of, type: "Tombstone" },
    });
    const before = await replies();
    await sent(honest, "vic", [deletion(honest, "vic", note(honest, "vic", 20, "").id)]);
    await sent(evil, "mal", [deletion(evil, "mal", note(honest, "vic", 21, "").id)]);
    await sent(honest, "vic", [
      create(honest, "vic", 20, "Deleted at once"),
      create(honest, "vic", 21, "Still here"),
    ]);
    expect(await replies()).toEqual([...before, ["vic", "Still here"]]);
  });
  it("takes a writer's name and post only as the comment form would, so the site's export reads back in", {
    timeout: 240_000,
  }, async () => {
    const reply = (name: string, at: number, content: string) => ({
      id: `${honest.actor(name)}/notes/${at}/activity`,
      type: "Create",
      actor: honest.actor(name),
      object: {
        id: `${honest.actor(name)}/notes/${at}`,
        type: "Note",
        attributedTo: honest.actor(name),
        inReplyTo: soap,
        ...publicly,
        ...publicly,
        content,
      },
    });
    await sent(honest, "fancy", [reply("fancy", 1, "<p>Fancy agrees.</p>")]);
    await sent(honest, "blank", [reply("blank", 1, "<p>Blank agrees.</p>")]);
    await sent(honest, "zalgo", [
      reply("zalgo", 1, "<p>Zalgo agrees.</p>"),
      // Nothing that shows, screens of blank lines, 30 marks on a letter: the form refuses each.
      reply("zalgo", 2, ""),
      reply("zalgo", 3, `<p>Look</p>${"<p>\u3164</p>".repeat(20)}<p>down</p>`),
      reply("zalgo", 4, `<p>${marked("Hi", 30)}</p>`),
      // Cut at 2,000 characters through an emoji: its half goes.
      reply("zalgo", 5, `<p>${"a".repeat(1998)}\u{1F527}${"b".repeat(10)}</p>`),
    ]);
    const comments = json(
      await t.app.inject({ method: "GET", url: "/api/items/science/soap/comments" }),
      commentsResponseSchema,
    ).comments.filter((comment) => /fancy|blank|zalgo/.test(comment.remote?.handle ?? ""));
    expect(comments.map((comment) => [comment.userName, comment.content])).toEqual([
      // Cut at 40 UTF-16 units, as the form counts: 20 letters.
      [`${"\u{1D4D0}\u{1D4FC}\u{1D4F1}\u{1D4EA} ".repeat(4)}\u{1D4D0}\u{1D4FC}`, "Fancy agrees."],
      [`@blank@${new URL(honest.base).host}`, "Blank agrees."],
      [marked("Zalgo", 5), "Zalgo agrees."],
      [marked("Zalgo", 5), `${"a".repeat(1998)}…`],
    ]);
    await exportReadsBack();
  });

  it("refuses a post with an address longer, written out, than the database keeps, so the site's export reads back in", {
    timeout: 240_000,
  }, async () => {
    // Some 1,050 characters as sent, over 9,000 once %-escaped as they would be kept: over the
    // export's 2,000 bytes, and varied, so over PostgreSQL's 2,704 an index row once compressed.
    const words = Array.from({ length: 1000 }, (_, at) =>
      String.fromCodePoint(0x4e00 + ((at * 7919) % 20000)),
    );
    const long = (at: string) => `${at}/${words.join("")}`;
    const note = (id: string) => ({
      id,
      type: "Note",
      attributedTo: mal(),
      inReplyTo: soap,
      ...publicly,
      content: "<p>Long address</p>",
    });
    const refused = [
      { id: long(`${mal()}/likes`), type: "Like", actor: mal(), object: soap },
      { id: `${mal()}/long/1`, type: "Create", actor: mal(), object: note(long(`${mal()}/notes`)) },
    ];
    for (const activity of refused) {
      const answer = await t.app.inject(await evil.signed("mal", activity));
      expect(answer.statusCode, activity.type).toBe(400);
      expect(answer.json().error.message).toBe("The activity could not be read.");
    }
    // Fetched by its address, a post that names itself by a longer one is not kept either.
    const fetched = `${evil.base}/notes/x70`;
    const context = "https://www.w3.org/ns/activitystreams";
    evil.serve({ "@context": context, ...note(long(fetched)) }, fetched);
    await sent(evil, "mal", [
      { id: `${fetched}/activity`, type: "Create", actor: mal(), object: fetched, ...publicly },
    ]);
    expect(await replies()).not.toContainEqual(["mal", "Long address"]);
    // An account fetched by its address that names itself by a longer one does not follow.
    const keys = await evil.newKey("named");
    const person = `${evil.base}/people/named`;
    evil.serve(
      {
        "@context": [context, "https://w3id.org/security/v1"],
        id: long(person),
        type: "Person",
        preferredUsername: "named",
        inbox: `${person}/inbox`,
        publicKey: { id: `${person}#main-key`, owner: person, publicKeyPem: keys.publicKeyPem },
      },
      person,
    );
    const follow = {
      id: `${person}/follows/1`,
      type: "Follow",
      actor: person,
      object: `${siteUrl}/fediverse/actors/site`,
    };
    const followed = await t.app.inject(await injected(await keys.signed(siteUrl, person, follow)));
    expect(followed.statusCode).toBe(202);
    await waitFor(queueDone, { timeoutMs: 120_000, what: "the follow handled" });
    const kept = await runSql(
      t,
      `select activity_id as id from fediverse_reactions union all select note_id from fediverse_replies
        union all select actor_id from fediverse_followers`,
    );
    expect(kept.filter(({ id }) => String(id).length > 2000)).toEqual([]);
    await exportReadsBack();
  });

  it("shows no reply meant for its addressees alone: a direct message, or one to its writer's followers", {
    timeout: 240_000,
  }, async () => {
    const followers = `${vic()}/followers`;
    const reply = (at: number, content: string, to: string[], cc: string[]) => ({
      id: `${vic()}/notes/${at}/activity`,
      type: "Create",
      actor: vic(),
      object: {
        id: `${vic()}/notes/${at}`,
        type: "Note",
        attributedTo: vic(),
        inReplyTo: soap,
        content: `<p>${content}</p>`,
        to,
        cc,
      },
    });
    const site = `${siteUrl}/fediverse/actors/site`;
    const before = await replies();
    await sent(honest, "vic", [
      reply(30, "Only for you", [site], []),
      reply(31, "Only for my followers", [followers], [site]),
      // Unlisted: public, only kept off the timelines.
      reply(32, "Unlisted", [followers], [site, publicly.to[0] ?? ""]),
      reply(33, "As:Public", ["as:Public"], [site]),
    ]);
    // In either order: the queue's workers may take the two at once.
    const after = await replies();
    expect(after.slice(0, before.length)).toEqual(before);
    expect(after.slice(before.length).sort()).toEqual([
      ["vic", "As:Public"],
      ["vic", "Unlisted"],
    ]);
  });

  it("links a reply's original post at its own server only", { timeout: 240_000 }, async () => {
    const reply = (at: number, url: string) => ({
      id: `${vic()}/notes/${at}/activity`,
      type: "Create",
      actor: vic(),
      object: {
        id: `${vic()}/notes/${at}`,
        type: "Note",
        attributedTo: vic(),
        inReplyTo: soap,
        content: `<p>Original ${at}</p>`,
        url,
        ...publicly,
      },
    });
    await sent(honest, "vic", [
      reply(40, `${honest.base}/@vic/40`),
      reply(41, "https://bank.example/login"),
    ]);
    const links = json(
      await t.app.inject({ method: "GET", url: "/api/items/science/soap/comments" }),
      commentsResponseSchema,
    )
      .comments.filter((comment) => comment.content.startsWith("Original"))
      // In either order: the queue's workers may take the two at once.
      .sort((a, b) => a.content.localeCompare(b.content));
    expect(links.map((comment) => comment.remote?.url)).toEqual([
      `${honest.base}/@vic/40`,
      `${vic()}/notes/41`,
    ]);
  });

  it("never counts a like undone before it came, and takes no Undo of it from another account", {
    timeout: 240_000,
  }, async () => {
    const like = { id: `${honest.actor("blank")}/likes/50`, type: "Like", object: garuda };
    const boost = { id: `${honest.actor("fancy")}/boosts/50`, type: "Announce", object: garuda };
    const undo = (server: typeof evil, name: string, of: typeof like) => ({
      id: `${of.id}/undo/${name}`,
      type: "Undo",
      actor: server.actor(name),
      object: { ...of, actor: server.actor(name) },
    });
    const before = Number(await fromFediverse());
    await sent(honest, "blank", [undo(honest, "blank", like)]);
    await sent(evil, "mal", [undo(evil, "mal", boost)]);
    await sent(honest, "blank", [{ ...like, actor: honest.actor("blank") }]);
    await sent(honest, "fancy", [{ ...boost, actor: honest.actor("fancy") }]);
    expect(Number(await fromFediverse())).toBe(before + 1);
  });

  it("keeps no copy of a deleted or erased post's words, fetched by its address when it arrived", {
    timeout: 240_000,
  }, async () => {
    // At Misskey's own address for posts, not under its writer's.
    const note = (id: string, by: string) => ({
      "@context": "https://www.w3.org/ns/activitystreams",
      id,
      type: "Note",
      attributedTo: by,
      inReplyTo: soap,
      content: "<p>Words fetched once</p>",
      ...publicly,
    });
    const words = async () =>
      runSql(t, "select key from fediverse_kv where value like ?", ["%Words fetched once%"]);
    const post = `${honest.base}/notes/x60`;
    honest.serve(note(post, vic()));
    await sent(honest, "vic", [
      { id: `${post}/activity`, type: "Create", actor: vic(), object: post, ...publicly },
    ]);
    expect(await replies()).toContainEqual(["vic", "Words fetched once"]);
    expect(await words()).not.toEqual([]);
    await sent(honest, "vic", [
      { id: `${post}/delete`, type: "Delete", actor: vic(), object: post },
    ]);
    expect(await replies()).not.toContainEqual(["vic", "Words fetched once"]);
    expect(await words()).toEqual([]);

    // An erased account's, the same.
    const blank = honest.actor("blank");
    const other = `${honest.base}/notes/x61`;
    honest.serve(note(other, blank));
    await sent(honest, "blank", [
      { id: `${other}/activity`, type: "Create", actor: blank, object: other, ...publicly },
    ]);
    expect(await words()).not.toEqual([]);
    expect((await admin(adminEnv(t), "fediverse", "erase", blank)).code).toBe(0);
    expect(await words()).toEqual([]);
  });

  it("takes no Undo of an account's Follow from another account, and takes the account's own", {
    timeout: 240_000,
  }, async () => {
    const followId = `${vic()}#follows/undo-test`;
    await runSql(
      t,
      "insert into fediverse_followers (actor_id, handle, inbox, shared_inbox, follow_id, created_at) values (?, ?, ?, ?, ?, ?)",
      [vic(), "@vic@honest", `${vic()}/inbox`, null, followId, new Date().toISOString()],
    );
    const following = async () =>
      (await runSql(t, "select 1 from fediverse_followers where actor_id = ?", [vic()])).length;
    const follow = {
      id: followId,
      type: "Follow",
      actor: vic(),
      object: `${siteUrl}/fediverse/actors/site`,
    };
    // Vic's Follow as it is, or without its id (any Follow of vic's, then).
    const { id: _id, ...anyFollow } = follow;
    await sent(evil, "mal", [
      { id: `${mal()}/undo/follow`, type: "Undo", actor: mal(), object: follow },
      { id: `${mal()}/undo/any-follow`, type: "Undo", actor: mal(), object: anyFollow },
    ]);
    expect(await following()).toBe(1);
    await sent(honest, "vic", [
      { id: `${vic()}#follows/undo-test/undo`, type: "Undo", actor: vic(), object: follow },
    ]);
    await waitFor(async () => (await following()) === 0, { what: "vic's own Undo taken" });
  });

  it("takes an account only from a document Mastodon would read as ActivityPub's, not from any other file its server keeps", {
    timeout: 240_000,
  }, async () => {
    const keys = await remoteAccountKeys();
    // A context of its own, given as plain JSON: read, as a context is, whatever its JSON type.
    for (const server of [honest, evil]) {
      server.serve(
        { id: "context", "@context": { pronouns: "http://schema.org/pronouns" } },
        `${server.base}/contexts/plain`,
        "application/json",
      );
    }
    /**
     * A post signed as the account at `actor`, whose document `server` gives as `type`, from
     * an address of its own: each refusal counts against its address and its key's host.
     */
    const postAs = async (name: string, type: string, server = honest) => {
      const actor = `${server.base}/uploads/${name}.json`;
      server.serve(
        {
          "@context": [
            "https://www.w3.org/ns/activitystreams",
            "https://w3id.org/security/v1",
            `${server.base}/contexts/plain`,
          ],
          id: actor,
          type: "Person",
          preferredUsername: name,
          name,
          inbox: `${actor}/inbox`,
          publicKey: { id: `${actor}#main-key`, owner: actor, publicKeyPem: keys.publicKeyPem },
        },
        actor,
        type,
      );
      const post = `${server.base}/uploads/${name}/note`;
      const activity = {
        id: `${post}/activity`,
        type: "Create",
        actor,
        object: {
          id: post,
          type: "Note",
          attributedTo: actor,
          inReplyTo: soap,
          content: `<p>I am ${name}.</p>`,
          ...publicly,
        },
        ...publicly,
      };
      const signed = await injected(await keys.signed(siteUrl, actor, activity));
      return t.app.inject({ ...signed, remoteAddress: "203.0.113.60" });
    };
    const refused = [
      "text/plain",
      "image/png",
      "application/octet-stream",
      // JSON, as an API or an upload is given, and JSON-LD of another profile or none.
      "application/json",
      "application/ld+json",
      'application/ld+json; profile="https://example.com/ns"',
    ];
    for (const [at, type] of refused.entries()) {
      const name = `admin${at}`;
      expect((await postAs(name, type, at % 2 ? evil : honest)).statusCode, type).toBe(401);
      expect(await replies(), type).not.toContainEqual([name, `I am ${name}.`]);
    }
    // Given as ActivityPub's JSON, or as JSON-LD of its profile, the same account is one.
    const taken = [
      "application/activity+json",
      "application/activity+json; charset=utf-8",
      'application/ld+json; profile="https://www.w3.org/ns/activitystreams"',
      'application/ld+json;profile="https://www.w3.org/ns/activitystreams https://example.com/ns"',
    ];
    for (const [at, type] of taken.entries()) {
      expect((await postAs(`member${at}`, type)).statusCode, type).toBe(202);
    }
    await waitFor(
      async () => {
        const names = (await replies()).map(([name]) => name);
        return taken.every((_, at) => names.includes(`member${at}`));
      },
      { timeoutMs: 120_000, what: "each member's reply" },
    );
  });

  it("answers an address's reads of each of the Fediverse's addresses past 300 a minute with 429, and no other address's", {
    timeout: 240_000,
  }, async () => {
    const read = (url: string, remoteAddress: string) =>
      t.app.inject({
        method: "GET",
        url,
        remoteAddress,
        headers: { accept: "application/activity+json" },
      });
    const host = new URL(siteUrl).host;
    /** Every address the count covers, each as a server reads it. */
    const limited = [
      "/fediverse/actors/site",
      "/fediverse/actors/site/outbox?cursor=0",
      "/fediverse/actors/site/followers",
      "/fediverse/items/science/soap",
      "/science/soap",
      `/.well-known/webfinger?resource=acct:arjun@${host}`,
      "/.well-known/nodeinfo",
      "/nodeinfo/2.1",
    ];
    // A new address of its own, so the other tests' reads count for nothing here.
    const reader = `203.0.113.${backend === "sqlite" ? 7 : 8}`;
    for (const url of limited) expect((await read(url, reader)).statusCode, url).toBe(200);
    for (let n = limited.length; n < 300; n += 1) {
      expect((await read("/nodeinfo/2.1", reader)).statusCode).toBe(200);
    }
    // A Note's address is counted before it is looked up: one that is not is refused too.
    for (const url of [...limited, "/fediverse/notes/1"]) {
      const refused = await read(url, reader);
      expect(refused.statusCode, url).toBe(429);
      expect(Number(refused.headers["retry-after"])).toBeGreaterThan(0);
      expect(refused.json()).toMatchObject({ error: { code: "rate_limited" } });
    }
    expect((await read("/fediverse/items/science/soap", "203.0.113.9")).statusCode).toBe(200);
    // The pages themselves are not counted.
    const page = await t.app.inject({ method: "GET", url: "/science/soap", remoteAddress: reader });
    expect(page.statusCode).toBe(200);
  });
});
