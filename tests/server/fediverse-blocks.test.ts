import { mkdtempSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { commentResponseSchema } from "../../contract/api.ts";
import { waitFor } from "../support/wait-for.ts";
import { admin, adminEnv } from "./support/admin.ts";
import { Owner } from "./support/owner.ts";
import { runSql } from "./support/sql.ts";
import { misskeyServer } from "./support/stand-in-server.ts";
import {
  backends,
  json,
  siteUrl,
  soapFeed,
  startTestApp,
  type TestApp,
  type TestAppOptions,
} from "./support/test-app.ts";

/*
 * What a blocked account or server sends is dropped before anything reads it:
 * its post, signed, is answered as a post taken is (202), having fetched
 * neither its key nor a context, and nothing of it is kept. Unblocked, it is
 * taken again. A post that fails a check needing no key is answered as anyone's
 * would be. A block from the command line, or brought in by an import, holds at
 * the running server's inbox at once. A blocked account's Follow is never
 * answered; a follower blocked later is told once and removed. One key may post
 * 60 activities a minute. A blocked server's or account's pages mention nothing.
 * On PostgreSQL, a block made through one instance holds on another.
 */

const soap = `${siteUrl}/fediverse/items/science/soap`;
const options: TestAppOptions = {
  // The other servers are on loopback: the tests' setting lets the site reach them.
  env: { FEDIVERSE_HANDLE: "arjun", ALLOW_PRIVATE_ADDRESSES_IN_TESTS: "on" },
  clientFiles: {
    "feed.json": JSON.stringify(soapFeed),
    "science/soap/index.html": "<!doctype html><title>Soap</title>",
  },
};

type StandIn = Awaited<ReturnType<typeof misskeyServer>>;

/** A like of the soap post by `name` on `remote`, in a context only JSON-LD's processing fetches. */
const like = (remote: StandIn, name: string, tag: string) => ({
  "@context": ["https://www.w3.org/ns/activitystreams", `${remote.base}/contexts/misskey`],
  id: `${remote.actor(name)}/likes/${tag}`,
  type: "Like",
  actor: remote.actor(name),
  object: soap,
});

/** What the site asked of `remote` about `name`'s account (its key), and of its context. */
const askedAbout = (remote: StandIn, name: string) =>
  remote.asked.filter((line) => line === `GET /users/${name}` || line.includes("/contexts/"));
/** Whether the site fetched `name`'s account (its key) from `remote`: it read their post. */
const fetched = (remote: StandIn, name: string) => remote.asked.includes(`GET /users/${name}`);

/** The likes of the soap post the site keeps from `remote`. */
const likesFrom = async (t: TestApp, remote: StandIn) =>
  (await runSql(t, "select actor_id from fediverse_reactions"))
    .map((row) => String(row.actor_id))
    .filter((actor) => actor.startsWith(remote.base));

/** `name`'s like, signed with a key of its own, posted to `t`'s shared inbox: its answer's status. */
async function post(t: TestApp, remote: StandIn, name: string, tag: string) {
  await remote.newKey(name);
  return (await t.app.inject(await remote.signed(name, like(remote, name, tag)))).statusCode;
}

const hostOf = (remote: StandIn) => new URL(remote.base).host;

/** `name`'s Follow of the site. */
const follow = (remote: StandIn, name: string, tag: string) => ({
  id: `${remote.actor(name)}/follows/${tag}`,
  type: "Follow",
  actor: remote.actor(name),
  object: `${siteUrl}/fediverse/actors/site`,
});

/** The posts the site made to `name`'s inbox (an Accept, a Reject). */
const toInboxOf = (remote: StandIn, name: string) =>
  remote.asked.filter((line) => line === `POST /users/${name}/inbox`).length;

/** Whether the Fediverse queue is empty: every activity received, and what it sent, handled. */
const queueDone = async (t: TestApp) =>
  (await runSql(t, "select 1 from fediverse_queue")).length === 0;

/**
 * Whether `t`'s inbox takes a post from `remote` now: each probe is a new
 * account, whose key the site has never fetched, so fetched means read.
 */
function prober(t: TestApp, remote: StandIn) {
  let probe = 0;
  return async () => {
    probe += 1;
    const name = `probe${probe}`;
    expect(await post(t, remote, name, "1")).toBe(202);
    return fetched(remote, name);
  };
}

describe.each(backends)("blocked senders at the inbox, on %s", (backend) => {
  let t: TestApp;
  let owner: Owner;
  const remotes: StandIn[] = [];
  const standIn = async () => {
    const remote = await misskeyServer();
    remotes.push(remote);
    return remote;
  };
  beforeAll(async () => {
    t = await startTestApp(backend, options);
    owner = new Owner(t);
    expect((await owner.signIn()).statusCode).toBe(200);
  });
  afterAll(async () => {
    await t?.close();
    for (const remote of remotes) remote.close();
  });
  const block = (target: string) => owner.post("/api/admin/fediverse/block", { target });
  const unblock = (target: string) => owner.post("/api/admin/fediverse/unblock", { target });

  // The first post loads Fedify: seconds, or a minute on a machine busy with other tests.
  it("drops a blocked server's signed post without fetching its key or a context, and takes it once unblocked", {
    timeout: 240_000,
  }, async () => {
    const remote = await standIn();
    expect((await block(hostOf(remote))).statusCode).toBe(204);
    expect(await post(t, remote, "ann", "blocked")).toBe(202);
    expect(askedAbout(remote, "ann")).toEqual([]);

    expect((await unblock(hostOf(remote))).statusCode).toBe(204);
    expect(await post(t, remote, "ann", "unblocked")).toBe(202);
    expect(fetched(remote, "ann")).toBe(true);
    await waitFor(async () => (await likesFrom(t, remote)).length === 1, {
      timeoutMs: 120_000,
      what: "Ann's like, once her server is unblocked",
    });
  });

  it("drops a blocked account's signed post the same way, and takes its server's others", {
    timeout: 240_000,
  }, async () => {
    const remote = await standIn();
    expect((await block(remote.actor("bo"))).statusCode).toBe(204);
    expect(await post(t, remote, "bo", "blocked")).toBe(202);
    expect(askedAbout(remote, "bo")).toEqual([]);
    expect(await post(t, remote, "cy", "taken")).toBe(202);
    expect(fetched(remote, "cy")).toBe(true);

    expect((await unblock(remote.actor("bo"))).statusCode).toBe(204);
    expect(await post(t, remote, "bo", "unblocked")).toBe(202);
    expect(fetched(remote, "bo")).toBe(true);
    await waitFor(async () => (await likesFrom(t, remote)).length === 2, {
      timeoutMs: 120_000,
      what: "Cy's like and Bo's, once he is unblocked",
    });
  });

  it("answers a blocked server's post that fails a check needing no key as anyone's, and its well-formed one 202 unread", {
    timeout: 240_000,
  }, async () => {
    const blockedOne = await standIn();
    const other = await standIn();
    expect((await block(hostOf(blockedOne))).statusCode).toBe(204);
    /** Each of `remote`'s posts, broken one way: its answers, from an address of its own. */
    const answers = async (remote: StandIn, remoteAddress: string) => {
      await remote.newKey("gil");
      const post = await remote.signed("gil", like(remote, "gil", "broken"));
      const { signature = "", digest: _digest, ...rest } = post.headers;
      const hoursAgo = new Date(Date.now() - 2 * 3_600_000).toUTCString();
      const broken = {
        unsigned: { ...rest, digest: post.headers.digest },
        "an unknown algorithm": {
          ...post.headers,
          signature: signature.replace('algorithm="rsa-sha256"', 'algorithm="rsa-sha999"'),
        },
        "a date two hours old": { ...post.headers, date: hoursAgo },
        "no digest": { ...rest, signature },
      };
      const statuses: Record<string, number> = {};
      for (const [what, headers] of Object.entries(broken)) {
        statuses[what] = (await t.app.inject({ ...post, headers, remoteAddress })).statusCode;
      }
      return statuses;
    };
    const refused = {
      unsigned: 401,
      "an unknown algorithm": 401,
      "a date two hours old": 401,
      "no digest": 401,
    };
    expect(await answers(other, "203.0.113.42")).toEqual(refused);
    expect(await answers(blockedOne, "203.0.113.41")).toEqual(refused);
    // Well-formed, the blocked server's post is dropped unread: its key is never fetched.
    expect(await post(t, blockedOne, "gil", "well-formed")).toBe(202);
    expect(askedAbout(blockedOne, "gil")).toEqual([]);
  });

  it("leaves a blocked account's Follow unanswered, even once read before the block is heard", {
    timeout: 240_000,
  }, async () => {
    const remote = await standIn();
    // The inbox reads the blocks now, at another server's block and unblock, and not for a minute.
    expect((await block("elsewhere.example")).statusCode).toBe(204);
    expect((await unblock("elsewhere.example")).statusCode).toBe(204);
    expect(await prober(t, remote)()).toBe(true);
    // Written past the journal: the inbox, which has read the blocks, has not heard of it.
    // A read the unblock's event sets off (within a second on SQLite) may still land after
    // the row is written: then the Follow is dropped unread, and a new account tries again,
    // until one's key was fetched (its Follow read before the block was heard).
    let name = "";
    for (let attempt = 1; !name || !fetched(remote, name); attempt++) {
      expect(attempt, "a Follow read before its block was heard").toBeLessThan(6);
      name = `jo${attempt}`;
      await runSql(t, "insert into fediverse_blocks (target, created_at) values (?, ?)", [
        remote.actor(name),
        new Date().toISOString(),
      ]);
      await remote.newKey(name);
      expect(
        (await t.app.inject(await remote.signed(name, follow(remote, name, "1")))).statusCode,
      ).toBe(202);
    }
    await waitFor(() => queueDone(t), { timeoutMs: 120_000, what: "the Follow handled" });
    expect(toInboxOf(remote, name)).toBe(0);
    expect(
      await runSql(t, "select 1 from fediverse_followers where actor_id = ?", [remote.actor(name)]),
    ).toEqual([]);
  });

  it("removes a follower blocked later, tells its server once, and answers nothing it sends after", {
    timeout: 240_000,
  }, async () => {
    const remote = await standIn();
    const kit = remote.actor("kit");
    const followsSite = async () =>
      (await runSql(t, "select 1 from fediverse_followers where actor_id = ?", [kit])).length > 0;
    await remote.newKey("kit");
    expect(
      (await t.app.inject(await remote.signed("kit", follow(remote, "kit", "1")))).statusCode,
    ).toBe(202);
    // A delivery refused 404 is posted again, signed the other way: counted once handled.
    await waitFor(async () => (await followsSite()) && (await queueDone(t)), {
      timeoutMs: 120_000,
      what: "Kit following, and the Accept sent",
    });
    const accepted = toInboxOf(remote, "kit");
    expect(accepted).toBeGreaterThan(0);
    expect((await block(kit)).statusCode).toBe(204);
    expect(await followsSite()).toBe(false);
    await waitFor(async () => toInboxOf(remote, "kit") > accepted && (await queueDone(t)), {
      timeoutMs: 120_000,
      what: "the Reject of Kit's Follow sent to his server",
    });
    const told = toInboxOf(remote, "kit");
    // Following again, or liking, is dropped unread and unanswered.
    const again = await t.app.inject(await remote.signed("kit", follow(remote, "kit", "2")));
    expect(again.statusCode).toBe(202);
    expect(await post(t, remote, "kit", "after")).toBe(202);
    await waitFor(() => queueDone(t), { timeoutMs: 120_000, what: "the queue emptied" });
    expect(toInboxOf(remote, "kit")).toBe(told);
    expect(await followsSite()).toBe(false);
    expect(await likesFrom(t, remote)).toEqual([]);
  });

  /** The command line's import of an export file holding one block, of `target`. */
  const importBlockOf = (target: string) => {
    const file = path.join(mkdtempSync(path.join(os.tmpdir(), "ewe-blocks-")), "site.json");
    const at = new Date().toISOString();
    writeFileSync(
      file,
      JSON.stringify({
        format: "engage-with-engineer-export",
        version: 1,
        exportedAt: at,
        settings: {},
        tables: { fediverse_blocks: [{ target, created_at: at }] },
      }),
    );
    return admin(adminEnv(t), "import", "--from", "export", file);
  };

  it("drops at once what a server blocked by an import sends", { timeout: 240_000 }, async () => {
    const remote = await standIn();
    const taken = prober(t, remote);
    // The inbox reads the blocks now, at another server's block and unblock.
    expect((await block("elsewhere.example")).statusCode).toBe(204);
    expect((await unblock("elsewhere.example")).statusCode).toBe(204);
    expect(await taken()).toBe(true);
    const run = await importBlockOf(hostOf(remote));
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    // Well within the minute after which the blocks in memory are read again anyway.
    await waitFor(async () => !(await taken()), {
      timeoutMs: 20_000,
      what: "the server dropping the imported block's server's posts unread",
    });
  });

  it("sends nothing more to a follower whose server an import blocks, which then follows no more", {
    timeout: 240_000,
  }, async () => {
    const blockedServer = await standIn();
    const kit = blockedServer.actor("kit");
    await blockedServer.newKey("kit");
    expect(
      (await t.app.inject(await blockedServer.signed("kit", follow(blockedServer, "kit", "1"))))
        .statusCode,
    ).toBe(202);
    const followsSite = async () =>
      (await runSql(t, "select 1 from fediverse_followers where actor_id = ?", [kit])).length > 0;
    await waitFor(async () => (await followsSite()) && (await queueDone(t)), {
      timeoutMs: 120_000,
      what: "Kit following, and the Accept sent",
    });
    expect((await importBlockOf(hostOf(blockedServer))).code).toBe(0);
    const postsToBlocked = () =>
      blockedServer.asked.filter((line) => line.startsWith("POST ")).length;
    const before = postsToBlocked();

    // Something for every follower: the owner's answer to Dee, elsewhere, deleted.
    const writers = await standIn();
    await writers.newKey("dee");
    const status = `${writers.actor("dee")}/statuses/1`;
    const said = await t.app.inject(
      await writers.signed("dee", {
        "@context": "https://www.w3.org/ns/activitystreams",
        id: `${status}/activity`,
        type: "Create",
        actor: writers.actor("dee"),
        object: {
          id: status,
          type: "Note",
          attributedTo: writers.actor("dee"),
          inReplyTo: soap,
          content: "<p>Does soap work in cold water?</p>",
          to: ["https://www.w3.org/ns/activitystreams#Public"],
        },
      }),
    );
    expect(said.statusCode).toBe(202);
    const question = async () =>
      (await runSql(t, "select comment_id from fediverse_replies where note_id = ?", [status]))[0]
        ?.comment_id;
    await waitFor(async () => (await question()) !== undefined, {
      timeoutMs: 120_000,
      what: "Dee's question under the post",
    });
    const answered = await owner.post(`/api/admin/comments/${await question()}/reply`, {
      content: "It does, more slowly.",
    });
    expect(answered.statusCode).toBe(201);
    const answer = json(answered, commentResponseSchema).comment.id;
    const toDee = () => toInboxOf(writers, "dee");
    await waitFor(async () => toDee() > 0 && (await queueDone(t)), {
      timeoutMs: 120_000,
      what: "the answer at Dee's server",
    });
    const created = toDee();
    expect((await owner.delete(`/api/admin/comments/${answer}`)).statusCode).toBe(204);
    // Its Delete goes to Dee and to the followers' servers: none to the blocked one.
    await waitFor(async () => toDee() > created && (await queueDone(t)), {
      timeoutMs: 120_000,
      what: "the answer's Delete at Dee's server",
    });
    expect(postsToBlocked()).toBe(before);
    expect(await followsSite()).toBe(false);
  });

  it("drops what a server blocked from the command line sends, at the running server, until it is unblocked there", {
    timeout: 240_000,
  }, async () => {
    const remote = await standIn();
    const taken = prober(t, remote);
    // The server has read the blocks before the command line changes them.
    expect(await taken()).toBe(true);
    const env = adminEnv(t);
    expect((await admin(env, "fediverse", "block", hostOf(remote))).code).toBe(0);
    await waitFor(async () => !(await taken()), {
      timeoutMs: 20_000,
      what: "the server dropping the blocked server's posts unread",
    });
    expect((await admin(env, "fediverse", "unblock", hostOf(remote))).code).toBe(0);
    await waitFor(taken, { timeoutMs: 20_000, what: "the server taking its posts again" });
  });

  it("drops a mention from a blocked account's pages, and from a blocked server's, and shows the others", {
    timeout: 240_000,
  }, async () => {
    const target = `${siteUrl}/science/soap`;
    // Every page here links to the soap post, as a mention's must.
    const pages = createServer((_request, response) => {
      response
        .writeHead(200, { "content-type": "text/html" })
        .end(`<!doctype html><p class="h-entry">Soap, <a href="${target}">explained</a>.</p>`);
    });
    await new Promise<void>((resolve) => pages.listen(0, "127.0.0.1", resolve));
    try {
      const base = `http://127.0.0.1:${(pages.address() as AddressInfo).port}`;
      const mention = async (source: string) => {
        const response = await t.app.inject({
          method: "POST",
          url: "/webmention",
          headers: { "content-type": "application/x-www-form-urlencoded" },
          payload: new URLSearchParams({ source, target }).toString(),
        });
        expect(response.statusCode, source).toBe(202);
      };
      const shown = async () =>
        (await runSql(t, "select source from webmentions where status = 'published'"))
          .map((row) => String(row.source))
          .filter((source) => source.startsWith(base));
      expect((await block(`${base}/users/bo`)).statusCode).toBe(204);
      await mention(`${base}/users/bo/statuses/1`);
      await mention(`${base}/@cy/1`);
      // Checked in the order they came: once Cy's shows, Bo's was dropped.
      // Two fetches of a page, one after the other (one of a site's at a time): as
      // the waits above, 20 s: 10 s once ran out on a loaded machine with PostgreSQL.
      await waitFor(async () => (await shown()).length > 0, {
        timeoutMs: 20_000,
        what: "Cy's mention shown",
      });
      expect(await shown()).toEqual([`${base}/@cy/1`]);
      // The server blocked, Cy's page sent again takes its mention away.
      expect((await block(new URL(base).host)).statusCode).toBe(204);
      await mention(`${base}/@cy/1`);
      await waitFor(async () => (await runSql(t, "select 1 from webmentions")).length === 0, {
        timeoutMs: 20_000,
        what: "the blocked server's mention removed",
      });
    } finally {
      pages.close();
    }
  });

  // Once, on SQLite: each key's posts are counted in the process's memory, the
  // same on either database (the accepted posts' writes are the other tests').
  it.runIf(backend === "sqlite")(
    "answers a key's 61st post in a minute 429, and not another's",
    {
      timeout: 240_000,
    },
    async () => {
      const remote = await standIn();
      await remote.newKey("di");
      const sent = async (name: string, at: number) =>
        t.app.inject(await remote.signed(name, like(remote, name, `${at}`)));
      for (let at = 1; at <= 60; at += 1) {
        expect((await sent("di", at)).statusCode, `post ${at}`).toBe(202);
      }
      const refused = await sent("di", 61);
      expect(refused.statusCode).toBe(429);
      expect(refused.headers["retry-after"]).toBe("60");
      // Another account, from the same address, is taken.
      expect(await post(t, remote, "ed", "1")).toBe(202);
    },
  );
});

describe("a block on one instance, at another's inbox, on PostgreSQL", () => {
  let a: TestApp;
  let b: TestApp;
  let remote: StandIn;
  beforeAll(async () => {
    remote = await misskeyServer();
    a = await startTestApp("postgres", options);
    b = await startTestApp("postgres", { ...options, databaseUrl: a.databaseUrl });
  });
  afterAll(async () => {
    await b?.close();
    await a?.close();
    remote?.close();
  });

  it("drops at B what a server blocked through A sends, and takes it once unblocked through A", {
    timeout: 240_000,
  }, async () => {
    const owner = new Owner(a);
    expect((await owner.signIn()).statusCode).toBe(200);
    // B has read the blocks (none) before A blocks the server.
    expect(await post(b, remote, "fay", "before")).toBe(202);
    expect(fetched(remote, "fay")).toBe(true);
    const host = hostOf(remote);
    expect((await owner.post("/api/admin/fediverse/block", { target: host })).statusCode).toBe(204);
    const taken = prober(b, remote);
    await waitFor(async () => !(await taken()), {
      timeoutMs: 20_000,
      what: "B dropping the blocked server's posts unread",
    });
    expect((await owner.post("/api/admin/fediverse/unblock", { target: host })).statusCode).toBe(
      204,
    );
    await waitFor(taken, { timeoutMs: 20_000, what: "B taking the unblocked server's posts" });
  });
});
