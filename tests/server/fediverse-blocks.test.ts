import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { waitFor } from "../support/wait-for.ts";
import { admin, adminEnv } from "./support/admin.ts";
import { Owner } from "./support/owner.ts";
import { runSql } from "./support/sql.ts";
import { misskeyServer } from "./support/stand-in-server.ts";
import {
  backends,
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
 * taken again. A block from the command line holds at the running server's
 * inbox. One key may post 60 activities a minute. On PostgreSQL, a block made
 * through one instance holds on another.
 */

const soap = `${siteUrl}/fediverse/items/science/soap`;
const options: TestAppOptions = {
  // The other servers are on loopback: the tests' setting lets the site reach them.
  env: { FEDIVERSE_HANDLE: "arjun", FEDIVERSE_ALLOW_PRIVATE_ADDRESSES_IN_TESTS: "on" },
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

  it("answers a key's 61st post in a minute 429, and not another's", {
    timeout: 240_000,
  }, async () => {
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
  });
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
