import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { healthResponseSchema } from "../../contract/console.ts";
import { followersResponseSchema } from "../../contract/fediverse.ts";
import { removeGoneFollowers } from "../../server/fediverse/gone-inboxes.ts";
import { createFediverseRepository } from "../../server/fediverse/repository.ts";
import { createRemoteFetch } from "../../server/lib/safe-fetch.ts";
import { waitFor } from "../support/wait-for.ts";
import { Owner } from "./support/owner.ts";
import { injected, remoteAccountKeys } from "./support/remote-keys.ts";
import { scratchStore } from "./support/scratch-store.ts";
import { runSql } from "./support/sql.ts";
import {
  backends,
  json,
  siteUrl,
  soapFeed,
  startTestApp,
  type TestApp,
} from "./support/test-app.ts";

/*
 * Inboxes that are gone. Two accounts of one server follow the site, each
 * with an inbox of its own and no shared one: Lee's inbox answers 410 Gone
 * (the account was deleted), May's 404 Not Found. Fedify gives each delivery
 * up at once, as permanent; the site records both for the Health screen, and
 * takes Lee, whose inbox is gone for good, off its followers, while May, whose
 * 404 may be a mistake of her server's, stays.
 */

const actor = `${siteUrl}/fediverse/actors/site`;

/** The server: its accounts' documents, and their inboxes' answers (by account). */
async function goneServer(answers: Record<string, number>) {
  const keys = await remoteAccountKeys();
  const posted: string[] = [];
  let base = "";
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      const [, name, inbox] = /^\/users\/(\w+)(\/inbox)?$/.exec(request.url ?? "") ?? [];
      const answer = name ? answers[name] : undefined;
      if (answer === undefined) return response.writeHead(404).end();
      if (inbox && request.method === "POST") {
        posted.push(`${JSON.parse(Buffer.concat(chunks).toString()).type} to ${name}`);
        // 0: takes the post and never answers; -1: drops the connection; 307: back to itself.
        if (answer === -1) return request.socket.destroy();
        if (answer === 307) return response.writeHead(307, { location: request.url }).end();
        return answer === 0 ? undefined : response.writeHead(answer).end();
      }
      const id = `${base}/users/${name}`;
      response.writeHead(200, { "content-type": "application/activity+json" }).end(
        JSON.stringify({
          "@context": ["https://www.w3.org/ns/activitystreams", "https://w3id.org/security/v1"],
          id,
          type: "Person",
          preferredUsername: name,
          inbox: `${id}/inbox`,
          publicKey: { id: `${id}#main-key`, owner: id, publicKeyPem: keys.publicKeyPem },
        }),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    posted,
    account: (name: string) => `${base}/users/${name}`,
    /** `name`'s Follow of the site, signed, as the site's shared inbox receives it. */
    follow: async (name: string) => {
      const account = `${base}/users/${name}`;
      const follow = { id: `${account}#follows/1`, type: "Follow", actor: account, object: actor };
      return injected(await keys.signed(siteUrl, account, follow));
    },
    close: () => {
      server.closeAllConnections();
      server.close();
    },
  };
}

describe.each(backends)("inboxes that are gone, on %s", (backend) => {
  let t: TestApp;
  let remote: Awaited<ReturnType<typeof goneServer>>;
  beforeAll(async () => {
    remote = await goneServer({ lee: 410, may: 404 });
    t = await startTestApp(backend, {
      env: { FEDIVERSE_HANDLE: "arjun", ALLOW_PRIVATE_ADDRESSES_IN_TESTS: "on" },
    });
  });
  afterAll(async () => {
    await t?.close();
    remote?.close();
  });

  // The first request loads Fedify: seconds, or a minute on a machine busy with other tests.
  it("records a delivery to an inbox that answers 410 or 404, and removes the follower only for 410", {
    timeout: 240_000,
  }, async () => {
    const owner = new Owner(t);
    await owner.signIn();
    for (const name of ["lee", "may"]) {
      expect((await t.app.inject(await remote.follow(name))).statusCode).toBe(202);
    }
    const followers = async () =>
      json(await owner.get("/api/admin/followers"), followersResponseSchema).followers.map(
        (one) => one.actorId,
      );
    const health = async () =>
      json(await owner.get("/api/admin/health"), healthResponseSchema).fediverseGivenUp;
    // Each Follow is answered with an Accept to its account's inbox: both fail for good.
    await waitFor(async () => (await health()).total === 2, {
      timeoutMs: 180_000,
      what: "both Accepts given up",
    });
    // Each Accept is posted once, or twice when Fedify signs it the other way too.
    expect(new Set(remote.posted)).toEqual(new Set(["Accept to lee", "Accept to may"]));
    const { latest } = await health();
    expect(
      latest.map(({ kind, why }) => ({ kind, why })).sort((a, b) => a.why.localeCompare(b.why)),
    ).toEqual([
      { kind: "outbox", why: "the inbox answered 404" },
      { kind: "outbox", why: "the inbox answered 410, so its followers were removed" },
    ]);
    // The site's own Accepts, never whom they went to.
    for (const { activity } of latest) {
      expect(activity).toMatch(new RegExp(`^${siteUrl}/`));
      expect(activity).not.toContain("lee");
      expect(activity).not.toContain("may");
    }
    expect(await followers()).toEqual([remote.account("may")]);
    // Given up: neither waits in the queue to be tried again.
    expect(await runSql(t, "select id from fediverse_queue")).toEqual([]);
  });
});

/*
 * A server that fails every delivery. Fedify's circuit breaker holds
 * deliveries to a server that keeps failing, tries one now and then, and
 * after a while (seven days by default; a second here) drops what it held: the
 * site records that for Health too, and keeps the follower, whose server may
 * come back.
 */
describe.each(backends)("a server that fails every delivery, on %s", (backend) => {
  let t: TestApp;
  let remote: Awaited<ReturnType<typeof goneServer>>;
  beforeAll(async () => {
    remote = await goneServer({ kim: 503 });
    t = await startTestApp(backend, {
      env: { FEDIVERSE_HANDLE: "arjun", ALLOW_PRIVATE_ADDRESSES_IN_TESTS: "on" },
      importFederation: async () => {
        const federation = await import("../../server/fediverse/federation.ts");
        return {
          ...federation,
          createSiteFederation: (deps) =>
            federation.createSiteFederation({
              ...deps,
              circuitBreaker: {
                failureThreshold: 1,
                recoveryDelay: { seconds: 1 },
                heldActivityTtl: { seconds: 1 },
              },
            }),
        };
      },
    });
  });
  afterAll(async () => {
    await t?.close();
    remote?.close();
  });

  it("records the delivery its circuit breaker dropped, and keeps the follower", {
    timeout: 240_000,
  }, async () => {
    const owner = new Owner(t);
    await owner.signIn();
    expect((await t.app.inject(await remote.follow("kim"))).statusCode).toBe(202);
    const health = async () =>
      json(await owner.get("/api/admin/health"), healthResponseSchema).fediverseGivenUp;
    await waitFor(async () => (await health()).total === 1, {
      timeoutMs: 180_000,
      what: "the Accept dropped by the circuit breaker",
    });
    const { latest } = await health();
    expect(latest.map(({ kind, why }) => ({ kind, why }))).toEqual([
      { kind: "outbox", why: "its server failed every try while the delivery was held" },
    ]);
    // Tried, then held and tried again now and then, never for good.
    expect(remote.posted.length).toBeGreaterThanOrEqual(1);
    expect(new Set(remote.posted)).toEqual(new Set(["Accept to kim"]));
    const followers = json(await owner.get("/api/admin/followers"), followersResponseSchema);
    expect(followers.followers.map((one) => one.actorId)).toEqual([remote.account("kim")]);
    expect(await runSql(t, "select id from fediverse_queue")).toEqual([]);
  });
});

/*
 * A server that takes Noa's deliveries and never answers and drops Ray's
 * connections, and one that redirects Sam's back to where they went. Each post to Noa
 * is cut at its deadline (the server's 15 s; a second here, since the test waits it
 * out twice, and Ray's and Sam's the server's own, which they must fail within whatever
 * the machine's load); once Fedify has tried for three days (here: the deliveries' start
 * moved three days back), it gives them up, and Health says why in words an
 * owner reads, naming no one: not "FetchError".
 */
describe.each(backends)("a server that never answers, on %s", (backend) => {
  let t: TestApp;
  let remote: Awaited<ReturnType<typeof goneServer>>;
  let looping: typeof remote;
  beforeAll(async () => {
    remote = await goneServer({ noa: 0, ray: -1 });
    // A server of its own: its failures would make Fedify's circuit breaker hold the other.
    looping = await goneServer({ sam: 307 });
    t = await startTestApp(backend, {
      env: { FEDIVERSE_HANDLE: "arjun", ALLOW_PRIVATE_ADDRESSES_IN_TESTS: "on" },
      fediverseAnswerMs: (inbox) => (inbox.pathname === "/users/noa/inbox" ? 1000 : 15_000),
    });
  });
  afterAll(async () => {
    await t?.close();
    remote?.close();
    looping?.close();
  });

  it("tells the owner the server did not answer in time, could not be reached, or redirected in a loop", {
    timeout: 240_000,
  }, async () => {
    const owner = new Owner(t);
    await owner.signIn();
    for (const name of ["noa", "ray"]) {
      expect((await t.app.inject(await remote.follow(name))).statusCode).toBe(202);
    }
    expect((await t.app.inject(await looping.follow("sam"))).statusCode).toBe(202);
    // Each Accept's delivery, between two tries, queued three days ago (compared and set). Aged
    // one by one, not by moving the app's clock: Fedify's circuit breaker, which nothing of the
    // site's can give a clock, holds a server's deliveries by the system's once it failed five.
    const threeDaysAgo = new Date(Date.now() - 3 * 86_400_000 - 60_000).toISOString();
    const moved = new Set<string>();
    await waitFor(
      async () => {
        const rows = await runSql(
          t,
          "select id, message from fediverse_queue where taken_until is null",
        );
        for (const { id, message } of rows) {
          const delivery = JSON.parse(String(message));
          if (delivery.type !== "outbox" || moved.has(delivery.inbox)) continue;
          const set = await runSql(
            t,
            // Due now: a delivery that fails at once has backed off for minutes by then.
            "update fediverse_queue set created_at = ?, due_at = ? where id = ? and message = ? and taken_until is null returning id",
            [threeDaysAgo, new Date().toISOString(), Number(id), String(message)],
          );
          if (set.length === 1) moved.add(delivery.inbox);
        }
        return moved.size === 3;
      },
      { timeoutMs: 120_000, what: "the Accepts' deliveries between two tries" },
    );
    const health = async () =>
      json(await owner.get("/api/admin/health"), healthResponseSchema).fediverseGivenUp;
    await waitFor(async () => (await health()).total === 3, {
      timeoutMs: 120_000,
      what: "the Accepts given up",
    });
    const { latest } = await health();
    expect(
      latest.map(({ kind, why }) => ({ kind, why })).sort((a, b) => a.why.localeCompare(b.why)),
    ).toEqual([
      { kind: "outbox", why: "the server could not be reached" },
      { kind: "outbox", why: "the server did not answer within a second" },
      { kind: "outbox", why: "the server redirected it too often" },
    ]);
    expect(new Set(remote.posted)).toEqual(new Set(["Accept to noa", "Accept to ray"]));
    expect(new Set(looping.posted)).toEqual(new Set(["Accept to sam"]));
    expect(await runSql(t, "select id from fediverse_queue")).toEqual([]);
  });
});

/*
 * A shared inbox that answers 410. Ann, Bo and Cy follow from one server
 * whose shared inbox takes what all three are sent, and now answers 410 to
 * every delivery. That may be the server closing or a mistake of its own, so
 * each account is asked for itself: Ann's document answers 410 (her account
 * is gone) and she leaves the followers; Bo's answers as ever and Cy's server
 * fails to say (503): both stay. Before, all three were removed.
 */
describe.each(backends)("a shared inbox that answers 410, on %s", (backend) => {
  let t: TestApp;
  let remote: Server;
  const posted: string[] = [];
  const asked: string[] = [];
  let base = "";
  beforeAll(async () => {
    const keys = await remoteAccountKeys();
    const documents: Record<string, number> = { ann: 410, bo: 200, cy: 503 };
    remote = createServer((request, response) => {
      request.resume();
      request.on("end", () => {
        if (request.method === "POST") {
          posted.push(request.url ?? "");
          return response.writeHead(request.url === "/inbox" ? 410 : 202).end();
        }
        const name = /^\/users\/(\w+)$/.exec(request.url ?? "")?.[1] ?? "";
        asked.push(name);
        const status = documents[name] ?? 404;
        if (status !== 200) return response.writeHead(status).end();
        const id = `${base}/users/${name}`;
        response.writeHead(200, { "content-type": "application/activity+json" }).end(
          JSON.stringify({
            "@context": ["https://www.w3.org/ns/activitystreams", "https://w3id.org/security/v1"],
            id,
            type: "Person",
            inbox: `${id}/inbox`,
            endpoints: { sharedInbox: `${base}/inbox` },
            publicKey: { id: `${id}#main-key`, owner: id, publicKeyPem: keys.publicKeyPem },
          }),
        );
      });
    });
    await new Promise<void>((resolve) => remote.listen(0, "127.0.0.1", resolve));
    base = `http://127.0.0.1:${(remote.address() as AddressInfo).port}`;
    t = await startTestApp(backend, {
      env: { FEDIVERSE_HANDLE: "arjun", ALLOW_PRIVATE_ADDRESSES_IN_TESTS: "on" },
      clientFiles: {
        "feed.json": JSON.stringify(soapFeed),
      },
    });
    for (const name of ["ann", "bo", "cy"]) {
      await runSql(
        t,
        "insert into fediverse_followers (actor_id, handle, inbox, shared_inbox, follow_id, created_at) values (?, ?, ?, ?, ?, ?)",
        [
          `${base}/users/${name}`,
          `@${name}@remote`,
          `${base}/users/${name}/inbox`,
          `${base}/inbox`,
          `${base}/users/${name}#follow`,
          new Date().toISOString(),
        ],
      );
    }
  });
  afterAll(async () => {
    await t?.close();
    remote?.closeAllConnections();
    remote?.close();
  });

  it("removes only the accounts behind it whose own documents answer 410", {
    timeout: 240_000,
  }, async () => {
    // What changed (the item, the account) is sent to the followers once the server listens.
    await t.app.listen({ host: "127.0.0.1", port: 0 });
    const owner = new Owner(t);
    await owner.signIn();
    const health = async () =>
      json(await owner.get("/api/admin/health"), healthResponseSchema).fediverseGivenUp;
    await waitFor(async () => (await health()).total === 2, {
      timeoutMs: 180_000,
      what: "the Create and the Update given up at the shared inbox",
    });
    // Sent to the shared inbox only, never to each account's own.
    expect(new Set(posted)).toEqual(new Set(["/inbox"]));
    expect(asked).toContain("ann");
    const { latest } = await health();
    for (const { why } of latest) {
      expect(why).toMatch(/^the shared inbox answered 410; of the [23] accounts behind it, [01] /);
    }
    const followers = json(await owner.get("/api/admin/followers"), followersResponseSchema);
    expect(followers.followers.map((one) => one.actorId).sort()).toEqual([
      `${base}/users/bo`,
      `${base}/users/cy`,
    ]);
  });
});

/*
 * A shared inbox that answers 410 with many accounts behind it. Each document
 * asked may take its whole ten seconds, four at a time, in the queue's run of
 * two minutes: a server that made sixty accounts follow the site, and answered
 * slowly, would have each delivery to it run past its deadline and be tried
 * again, asking all again. So at most forty are asked at one 410; the others
 * stay, to be asked at the next.
 */
describe.each(backends)("a shared inbox that answers 410 for many accounts, on %s", (backend) => {
  it("asks at most forty accounts behind it for their documents", async () => {
    const scratch = await scratchStore(backend, { migrated: true });
    const asked: string[] = [];
    const remote = createServer((request, response) => {
      asked.push(request.url ?? "");
      response.writeHead(410).end();
    });
    try {
      await new Promise<void>((resolve) => remote.listen(0, "127.0.0.1", resolve));
      const base = `http://127.0.0.1:${(remote.address() as AddressInfo).port}`;
      const repository = createFediverseRepository(scratch.store);
      const actorIds = Array.from({ length: 60 }, (_, i) => new URL(`${base}/users/u${i}`));
      for (const actor of actorIds) {
        await repository.follow({
          actorId: actor.href,
          handle: `@${actor.pathname.slice(7)}@remote`,
          name: null,
          inbox: `${actor.href}/inbox`,
          sharedInbox: `${base}/inbox`,
          followId: `${actor.href}#follow`,
        });
      }
      const why = await removeGoneFollowers(
        { inbox: new URL(`${base}/inbox`), actorIds },
        { repository, remoteFetch: createRemoteFetch({ allowPrivate: true, userAgent: "test" }) },
      );
      expect(asked).toHaveLength(40);
      expect(why).toBe(
        "the shared inbox answered 410; of the 60 accounts behind it, 40 answered 410 too and left the followers; 20 more were not asked and stay until its next 410",
      );
      expect(await repository.followers()).toHaveLength(20);
    } finally {
      remote.closeAllConnections();
      remote.close();
      await scratch.drop();
    }
  });
});
