import dns from "node:dns";
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { afterAll, afterEach, describe, expect, inject, it, vi } from "vitest";
import { createDatabase, dropDatabase } from "../support/postgres.ts";
import { waitFor } from "../support/wait-for.ts";
import { admin, adminEnv } from "./support/admin.ts";
import { injected, remoteAccountKeys } from "./support/remote-keys.ts";
import { runSql } from "./support/sql.ts";
import {
  type Backend,
  backends,
  capturedLogs,
  siteUrl,
  soapFeed,
  startTestApp,
  type TestApp,
  type TestAppOptions,
} from "./support/test-app.ts";

/*
 * An account on the Fediverse names its own inbox, and could name one on the
 * site's own network (a database on loopback, a cloud's metadata address):
 * the site never posts there. Loopback stand-ins: 127.0.0.1 (and ::1, which
 * localhost may name too) count as public here (`privateInboxesAllowed`),
 * 127.0.0.2 is the private address it is. What a server sends from a
 * database another process wrote to (the command line) is here too.
 */

const refused = "a Fediverse inbox on a private address was refused";

/** A server on `host` that records what is posted to it, and serves accounts when given. */
async function server(host: string, accounts?: (base: string, name: string) => unknown) {
  const posted: { url: string; type: string; activity: { object?: { id?: string } } }[] = [];
  const http = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      if (request.method === "POST") {
        const activity = JSON.parse(Buffer.concat(chunks).toString());
        posted.push({ url: request.url ?? "", type: activity.type, activity });
        return response.writeHead(202).end();
      }
      const name = /^\/users\/(\w+)$/.exec(request.url ?? "")?.[1];
      const account = name && accounts?.(base, name);
      if (!account) return response.writeHead(404).end();
      response
        .writeHead(200, { "content-type": "application/activity+json" })
        .end(JSON.stringify(account));
    });
  });
  await new Promise<void>((resolve) => http.listen(0, host, resolve));
  const base = `http://${host}:${(http.address() as AddressInfo).port}`;
  return {
    base,
    posted,
    close: () => {
      http.closeAllConnections();
      http.close();
    },
  };
}

const queueEmpty = async (t: TestApp) =>
  Number((await runSql(t, "select count(*) as n from fediverse_queue"))[0]?.n) === 0;

describe.each(backends)("inboxes on private addresses, on %s", (backend: Backend) => {
  const closing: (() => unknown)[] = [];
  afterEach(async () => {
    for (const close of closing.splice(0).reverse()) await close();
  });
  afterAll(async () => {
    for (const close of closing.splice(0).reverse()) await close();
  });

  /**
   * A site whose database holds these followers before it starts, and
   * publishes an item; `before` runs on its database before the start.
   */
  async function siteFollowedBy(
    followers: { actor: string; inbox: string; sharedInbox?: string }[],
    before: (db: { databaseUrl: string | undefined; dataDir: string }) => unknown = () => {},
    importFederation?: TestAppOptions["importFederation"],
  ) {
    const dataDir = mkdtempSync(path.join(os.tmpdir(), "ewe-private-inboxes-"));
    closing.push(() => rmSync(dataDir, { recursive: true, force: true }));
    let databaseUrl: string | undefined;
    if (backend === "postgres") {
      const url = await createDatabase(
        inject("postgresUrl"),
        "ewe_test",
        inject("postgresTemplate"),
      );
      databaseUrl = url;
      closing.push(() => dropDatabase(url));
    } else {
      mkdirSync(dataDir, { recursive: true, mode: 0o700 });
      copyFileSync(inject("sqliteTemplate"), path.join(dataDir, "engage.sqlite"));
      chmodSync(path.join(dataDir, "engage.sqlite"), 0o600);
    }
    for (const [index, follower] of followers.entries()) {
      await runSql(
        { databaseUrl, dataDir },
        "insert into fediverse_followers (actor_id, handle, inbox, shared_inbox, follow_id, created_at) values (?, ?, ?, ?, ?, ?)",
        [
          follower.actor,
          `@f${index}@remote`,
          follower.inbox,
          follower.sharedInbox ?? null,
          `${follower.actor}#follow`,
          new Date().toISOString(),
        ],
      );
    }
    await before({ databaseUrl, dataDir });
    const logs = capturedLogs("info");
    const t = await startTestApp(backend, {
      dataDir,
      ...(databaseUrl ? { databaseUrl } : {}),
      logger: logs.logger,
      // The writers' accounts are fetched on loopback; deliveries go only to 127.0.0.1.
      env: { FEDIVERSE_HANDLE: "arjun", ALLOW_PRIVATE_ADDRESSES_IN_TESTS: "on" },
      privateInboxesAllowed: (address) => address === "127.0.0.1" || address === "::1",
      ...(importFederation ? { importFederation } : {}),
      clientFiles: {
        "feed.json": JSON.stringify(soapFeed),
      },
    });
    closing.push(() => t.close());
    // What changed is sent once the server listens.
    await t.app.listen({ host: "127.0.0.1", port: 0 });
    return { t, logs };
  }

  it("sends a new item to followers at a public address, each host looked up once a send, drops a follower whose inbox is private, and keeps one whose server is not found now", {
    timeout: 240_000,
  }, async () => {
    const open = await server("127.0.0.1");
    const hidden = await server("127.0.0.2");
    closing.push(open.close, hidden.close);
    // Two accounts of one server named by a name, whose shared inbox takes what both are sent.
    const named = `http://localhost:${new URL(open.base).port}`;
    const sharing = (name: string) => ({
      actor: `${named}/users/${name}`,
      inbox: `${named}/users/${name}/inbox`,
      sharedInbox: `${named}/inbox`,
    });
    const lookups: string[] = [];
    const lookup = dns.promises.lookup;
    const spy = vi.spyOn(dns.promises, "lookup").mockImplementation(((host: string, options) => {
      lookups.push(host);
      return lookup(host, options as never);
    }) as typeof lookup);
    closing.push(() => spy.mockRestore());
    const { t, logs } = await siteFollowedBy([
      sharing("ok"),
      sharing("fine"),
      { actor: `${hidden.base}/users/mal`, inbox: `${hidden.base}/users/mal/inbox?key=secret` },
      { actor: "http://gone.invalid/users/lost", inbox: "http://gone.invalid/users/lost/inbox" },
    ]);

    // Two sends: the item, and the account (its keys new to followers).
    const sent = () => open.posted.filter(({ url }) => url === "/inbox").map(({ type }) => type);
    await waitFor(async () => sent().length === 2 && (await queueEmpty(t)), {
      timeoutMs: 180_000,
      what: "the Create and the Update delivered and the queue empty",
    });
    expect(sent().sort()).toEqual(["Create", "Update"]);
    expect(hidden.posted).toEqual([]);
    // The name looked up once a send, not once for each inbox on it.
    expect(lookups.filter((host) => host === "localhost")).toHaveLength(2);
    const warned = logs.lines.filter((line) => line.msg === refused);
    expect(warned).toContainEqual(
      expect.objectContaining({ level: 40, inbox: `${hidden.base}/users/mal/inbox` }),
    );
    expect(JSON.stringify(logs.lines)).not.toContain("key=secret");
    // Mal, kept from before Follows were checked, follows no more; Lost's server may come back.
    const followers = await runSql(t, "select actor_id from fediverse_followers order by actor_id");
    expect(followers.map((row) => row.actor_id)).toEqual([
      "http://gone.invalid/users/lost",
      `${named}/users/fine`,
      `${named}/users/ok`,
    ]);

    // Anyone may ask for the followers' list, which is the site's to keep: the
    // answer gives their number alone, as Mastodon shows it, before looking any
    // follower's server up or warning of one.
    lookups.length = 0;
    const logged = logs.lines.length;
    for (const query of ["", "?base-url=http://gone.invalid/", "?cursor=0"]) {
      const asked = await t.app.inject({
        url: `/fediverse/actors/site/followers${query}`,
        headers: { accept: "application/activity+json" },
      });
      expect(asked.statusCode, query).toBe(200);
      const { totalItems, ...rest } = asked.json();
      expect(totalItems, query).toBe(query === "" ? 3 : undefined);
      expect(JSON.stringify(rest), query).not.toContain("/users/");
    }
    expect(lookups).toEqual([]);
    const warnings = logs.lines
      .slice(logged)
      .filter((line) => (line.level ?? 0) >= 40 && !line.fedify);
    expect(warnings).toEqual([]);
  });

  it("does not follow an inbox's redirect to a private address, and records why the delivery was given up", {
    timeout: 240_000,
  }, async () => {
    const hidden = await server("127.0.0.2");
    closing.push(hidden.close);
    // An inbox on a public address that sends each post on to the private one.
    const knocks: string[] = [];
    const redirecting = createServer((request, response) => {
      knocks.push(request.method ?? "");
      request.resume();
      response.writeHead(307, { location: `${hidden.base}/inbox` }).end();
    });
    await new Promise<void>((resolve) => redirecting.listen(0, "127.0.0.1", resolve));
    closing.push(() => {
      redirecting.closeAllConnections();
      redirecting.close();
    });
    const base = `http://127.0.0.1:${(redirecting.address() as AddressInfo).port}`;
    const { t } = await siteFollowedBy([{ actor: `${base}/users/mal`, inbox: `${base}/inbox` }]);

    // The item's delivery knocks, is sent on, and fails rather than post there: Fedify queues it
    // again for later. Then its start is moved three days back, so the next try is its last.
    const retried = async () =>
      (
        await runSql(
          t,
          "select id, message from fediverse_queue where taken_until is null and due_at > ?",
          [new Date().toISOString()],
        )
      ).filter(({ message }) => JSON.parse(String(message)).type === "outbox");
    // The knock first: another delivery queued again is no sign of this one.
    await waitFor(
      async () =>
        knocks.includes("POST") && (hidden.posted.length > 0 || (await retried()).length > 0),
      {
        timeoutMs: 120_000,
        what: "the delivery redirected, and posted or queued again",
      },
    );
    expect(knocks).toContain("POST");
    expect(hidden.posted).toEqual([]);
    // Each delivery queued again is aged three days (compared and set), so its next try is its
    // last; then the send's deliveries (the item, the account) are given up. One by one, not by
    // moving the app's clock: Fedify's circuit breaker holds a server's deliveries by the system's.
    const threeDaysAgo = new Date(Date.now() - 3 * 86_400_000 - 60_000).toISOString();
    await waitFor(
      async () => {
        for (const { id, message } of await retried()) {
          await runSql(
            t,
            "update fediverse_queue set created_at = ?, due_at = ? where id = ? and message = ? and taken_until is null and created_at != ?",
            [threeDaysAgo, new Date().toISOString(), Number(id), String(message), threeDaysAgo],
          );
        }
        return queueEmpty(t);
      },
      { timeoutMs: 120_000, what: "the deliveries given up" },
    );
    const why = await runSql(t, "select why from fediverse_given_up");
    expect(why.length).toBeGreaterThan(0);
    expect(new Set(why.map((row) => row.why))).toEqual(
      new Set(["the server redirected it to a private address"]),
    );
    expect(hidden.posted).toEqual([]);
  });

  // The database plays no part in where a post connects: SQLite only.
  it.runIf(backend === "sqlite")(
    "does not post to an inbox whose name led to an address allowed when it was checked and to a private one when it is posted",
    {
      timeout: 240_000,
    },
    async () => {
      const hidden = await server("127.0.0.2");
      closing.push(hidden.close);
      // The name gives the stand-in public address to the check, the private one as a post connects.
      const name = "rebinding.example.net";
      const inbox = `http://${name}:${new URL(hidden.base).port}/inbox`;
      const checked: string[] = [];
      const connected: string[] = [];
      const lookup = dns.promises.lookup;
      const checks = vi.spyOn(dns.promises, "lookup").mockImplementation(((
        host: string,
        options,
      ) => {
        if (host !== name) return lookup(host, options as never);
        checked.push(host);
        return Promise.resolve([{ address: "127.0.0.1", family: 4 }]);
      }) as typeof lookup);
      const connect = dns.lookup;
      const connects = vi.spyOn(dns, "lookup").mockImplementation(((
        host: string,
        options: dns.LookupOptions | ((...args: unknown[]) => void),
        callback?: (...args: unknown[]) => void,
      ) => {
        const done = typeof options === "function" ? options : callback;
        if (host !== name || !done || typeof options === "function") {
          return (connect as (...args: unknown[]) => void)(host, options, callback);
        }
        connected.push(host);
        const address = { address: "127.0.0.2", family: 4 };
        if (options.all) done(null, [address]);
        else done(null, address.address, address.family);
      }) as unknown as typeof connect);
      closing.push(
        () => checks.mockRestore(),
        () => connects.mockRestore(),
      );
      const { t } = await siteFollowedBy([{ actor: `http://${name}/users/mal`, inbox }]);

      const retried = async () =>
        (
          await runSql(t, "select message from fediverse_queue where due_at > ?", [
            new Date().toISOString(),
          ])
        ).filter(({ message }) => JSON.parse(String(message)).type === "outbox");
      await waitFor(
        async () =>
          connected.length > 0 && (hidden.posted.length > 0 || (await retried()).length > 0),
        { timeoutMs: 120_000, what: "the delivery connecting, and posted or queued again" },
      );
      expect(checked).toContain(name);
      expect(hidden.posted).toEqual([]);
    },
  );

  /** A server of writers' accounts, and the owner's answer to Jo's post there, sent before. */
  async function joAnswered() {
    const accounts = await server("127.0.0.1", (base, name) => {
      const id = `${base}/users/${name}`;
      return {
        "@context": "https://www.w3.org/ns/activitystreams",
        id,
        type: "Person",
        inbox: `${id}/inbox`,
      };
    });
    closing.push(accounts.close);
    const jo = `${accounts.base}/users/jo`;
    return {
      accounts,
      jo,
      answered: async (db: { databaseUrl: string | undefined; dataDir: string }) => {
        const now = new Date().toISOString();
        await runSql(
          db,
          "insert into fediverse_published (path, digest, published_at, updated_at) values (?, ?, ?, ?)",
          ["/notes/41", `${jo}/statuses/1 ${jo}`, now, now],
        );
      },
      erase: async (db: { databaseUrl: string | undefined; dataDir: string }) =>
        expect((await admin(adminEnv(db), "fediverse", "erase", jo)).code).toBe(0),
      /** Where the answer's Deletes were delivered. */
      deletions: () =>
        accounts.posted
          .filter(
            ({ type, activity }) =>
              type === "Delete" && activity.object?.id === `${siteUrl}/fediverse/notes/41`,
          )
          .map(({ url, activity }) => {
            expect(JSON.stringify(activity)).not.toContain("/users/jo");
            return url;
          }),
    };
  }

  /**
   * A running site that nobody follows, so its start records the item, sends
   * nothing and leaves Fedify unloaded; `before` runs on its database first.
   * Its look at the queue, once a minute, comes as the test advances the clock.
   */
  async function siteNotLoaded(
    before: Parameters<typeof siteFollowedBy>[1],
    importFederation?: Parameters<typeof siteFollowedBy>[2],
  ) {
    vi.useFakeTimers({ toFake: ["setInterval", "clearInterval"] });
    closing.push(() => vi.useRealTimers());
    const site = await siteFollowedBy([], before, importFederation);
    const recorded = async () =>
      (await runSql(site.t, "select 1 from fediverse_published where path = '/science/soap'"))
        .length > 0;
    // Recorded after the start looked at the queue: what is queued from here waits for the minute.
    await waitFor(recorded, { timeoutMs: 60_000, what: "the item recorded" });
    return site;
  }

  it("sends the Deletes of an erasure the command line made while no server ran, once, when one starts", {
    timeout: 240_000,
  }, async () => {
    const { accounts, answered, erase, deletions } = await joAnswered();
    const follower = {
      actor: `${accounts.base}/users/ok`,
      inbox: `${accounts.base}/users/ok/inbox`,
      sharedInbox: `${accounts.base}/inbox`,
    };
    const { t } = await siteFollowedBy([follower], async (db) => {
      await answered(db);
      await erase(db);
    });
    await waitFor(async () => deletions().length === 2 && (await queueEmpty(t)), {
      timeoutMs: 180_000,
      what: "the answer's Delete at the follower's server and at Jo's, and the queue empty",
    });
    expect(deletions().sort()).toEqual(["/inbox", "/users/jo/inbox"]);
  });

  it("sends what the command line queued within a minute, from a running server that had not loaded Fedify", {
    timeout: 240_000,
  }, async () => {
    const { answered, erase, deletions } = await joAnswered();
    // Nothing is sent without Fedify: counting its loads shows the minute's look sent it.
    let loads = 0;
    const { t } = await siteNotLoaded(answered, () => {
      loads += 1;
      return import("../../server/fediverse/federation.ts");
    });
    await erase(t);
    expect(loads).toBe(0);
    vi.advanceTimersByTime(60_000);
    await waitFor(async () => deletions().length === 1 && (await queueEmpty(t)), {
      timeoutMs: 180_000,
      what: "the answer's Delete at Jo's server, and the queue empty",
    });
    expect(deletions()).toEqual(["/users/jo/inbox"]);
    expect(loads).toBe(1);
  });

  it("looks at the queue again a minute after Fedify failed to load, and then sends what waits", {
    timeout: 240_000,
  }, async () => {
    const { answered, erase, deletions } = await joAnswered();
    // Its first load fails (as a module that cannot be read would).
    let loads = 0;
    const { t, logs } = await siteNotLoaded(answered, () => {
      loads += 1;
      return loads === 1
        ? Promise.reject(new Error("Fedify did not load"))
        : import("../../server/fediverse/federation.ts");
    });
    await erase(t);
    expect(loads).toBe(0);
    vi.advanceTimersByTime(60_000);
    const waits = "the Fediverse queue waits: tried again in a minute";
    await waitFor(async () => logs.lines.some((line) => line.msg === waits), {
      timeoutMs: 120_000,
      what: "the failed load logged",
    });
    expect(deletions()).toEqual([]);
    vi.advanceTimersByTime(60_000);
    await waitFor(async () => deletions().length === 1 && (await queueEmpty(t)), {
      timeoutMs: 120_000,
      what: "the answer's Delete at Jo's server, and the queue empty",
    });
    expect(loads).toBe(2);
  });

  it("sends the Deletes of a take-back that failed, its database out of reach a moment, soon after", {
    timeout: 240_000,
  }, async () => {
    const { accounts, answered, erase, deletions } = await joAnswered();
    const { t, logs } = await siteNotLoaded(answered);
    // A follower whose server keeps a copy; then the erasure, and the followers out of reach.
    await runSql(
      t,
      "insert into fediverse_followers (actor_id, handle, inbox, shared_inbox, follow_id, created_at) values (?, ?, ?, ?, ?, ?)",
      [
        `${accounts.base}/users/ok`,
        "@ok@remote",
        `${accounts.base}/users/ok/inbox`,
        `${accounts.base}/inbox`,
        `${accounts.base}/users/ok#follow`,
        new Date().toISOString(),
      ],
    );
    await erase(t);
    await runSql(t, "alter table fediverse_followers rename to fediverse_followers_away");
    vi.advanceTimersByTime(60_000);
    const failed = "a Fediverse queue message failed";
    await waitFor(async () => logs.lines.some((line) => line.msg === failed), {
      timeoutMs: 120_000,
      what: "the take-back failed",
    });
    await runSql(t, "alter table fediverse_followers_away rename to fediverse_followers");
    // Taken again seconds later, well before its five-minute lease would end.
    await waitFor(async () => deletions().includes("/inbox") && (await queueEmpty(t)), {
      timeoutMs: 60_000,
      what: "the answer's Delete at the follower's server, and the queue empty",
    });
  });

  it("neither keeps nor answers a Follow from an account whose inbox is private", {
    timeout: 240_000,
  }, async () => {
    const hidden = await server("127.0.0.2");
    closing.push(hidden.close);
    const { publicKeyPem, signed } = await remoteAccountKeys();
    // Mal's account names an inbox on the private address; Ok's its own server's.
    const accounts = await server("127.0.0.1", (base, name) => {
      const id = `${base}/users/${name}`;
      const inbox = name === "mal" ? `${hidden.base}/inbox` : `${id}/inbox`;
      return {
        "@context": ["https://www.w3.org/ns/activitystreams", "https://w3id.org/security/v1"],
        id,
        type: "Person",
        preferredUsername: name,
        inbox,
        endpoints: { sharedInbox: inbox },
        publicKey: { id: `${id}#main-key`, owner: id, publicKeyPem },
      };
    });
    closing.push(accounts.close);
    // Fedify fetches the accounts on loopback; deliveries still go only to 127.0.0.1.
    const logs = capturedLogs("info");
    const t = await startTestApp(backend, {
      logger: logs.logger,
      env: { FEDIVERSE_HANDLE: "arjun", ALLOW_PRIVATE_ADDRESSES_IN_TESTS: "on" },
      privateInboxesAllowed: (address) => address === "127.0.0.1",
    });
    closing.push(() => t.close());
    const follow = async (name: string) => {
      const actor = `${accounts.base}/users/${name}`;
      const activity = {
        id: `${actor}#follows/1`,
        type: "Follow",
        actor,
        object: `${siteUrl}/fediverse/actors/site`,
      };
      const answer = await t.app.inject(await injected(await signed(siteUrl, actor, activity)));
      expect(answer.statusCode).toBe(202);
    };

    await follow("mal");
    await follow("ok");
    await waitFor(
      async () => accounts.posted.some(({ type }) => type === "Accept") && (await queueEmpty(t)),
      {
        timeoutMs: 180_000,
        what: "Ok's Follow accepted and the queue empty",
      },
    );
    const followers = await runSql(t, "select actor_id from fediverse_followers");
    expect(followers).toEqual([{ actor_id: `${accounts.base}/users/ok` }]);
    expect(hidden.posted).toEqual([]);
    expect(logs.lines).toContainEqual(
      expect.objectContaining({ msg: refused, actor: `${accounts.base}/users/mal` }),
    );
  });
});
