import { createServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { createFederation, generateCryptoKeyPair, MemoryKvStore } from "@fedify/fedify";
import { Create, Delete, Update } from "@fedify/fedify/vocab";
import { Temporal } from "@js-temporal/polyfill";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { Store } from "../../server/db/store.ts";
import { retryAfter } from "../../server/fediverse/deadlines.ts";
import { createMessageQueue, enqueueMessages } from "../../server/fediverse/message-queue.ts";
import { createFediverseRepository } from "../../server/fediverse/repository.ts";
import { createRemoteFetch } from "../../server/lib/safe-fetch.ts";
import { toIso } from "../../server/lib/time.ts";
import { waitFor } from "../support/wait-for.ts";
import { scratchStore } from "./support/scratch-store.ts";
import { backends } from "./support/test-app.ts";

const leaseMs = 5 * 60_000;
const quiet = { error: () => {}, warn: () => {} };
/**
 * The deadline of a delivery's posts: `stuckMs` to a stand-in server that will hold the post
 * (`holds` says so of its address as the first post leaves), 10 s to one that answers at once,
 * which a loaded machine must not miss. A cut is a cut whatever its length: the tests wait it
 * out for the stuck servers only, as briefly as what they measure allows.
 */
const answerMs =
  (holds: (inbox: URL) => boolean, stuckMs = 500) =>
  (inbox: URL) =>
    holds(inbox) ? stuckMs : 10_000;

/**
 * The site's signing key for every federation of the file, made once: Fedify's RSA of 4096 bits
 * took about half a CPU-second to make for each, and what the tests send is never verified.
 */
const siteKeys = generateCryptoKeyPair("RSASSA-PKCS1-v1_5");

/** A promise the test settles when it chooses. */
function gate() {
  let open = () => {};
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { open, opened };
}

it("has Fedify try again on the queue's rule: ever longer waits, at most an hour, for three days", () => {
  expect([1, 2, 3, 4].map((attempts) => retryAfter(1000, attempts))).toEqual([
    2000, 4000, 8000, 16_000,
  ]);
  expect(retryAfter(60_000, 12)).toBe(3_600_000);
  // Fedify gave up after ten tries, about half an hour; the queue's rule goes on for three days.
  expect(retryAfter(1_800_000, 10)).toBe(1_024_000);
  expect(retryAfter(3 * 86_400_000 - 1, 80)).toBe(3_600_000);
  expect(retryAfter(3 * 86_400_000, 81)).toBeNull();
});

describe.each(backends)("the Fediverse queue, on %s", (backend) => {
  let scratch: Awaited<ReturnType<typeof scratchStore>>;
  /** The queues' clock, moved by the tests. */
  let at = Date.now();
  const clock = () => new Date(at);
  const running: (() => Promise<void>)[] = [];

  /** A running instance's queue (one worker unless given), and the ids its handler was given. */
  function instance(
    handle: (id: string) => Promise<void>,
    {
      store = scratch.store,
      leaseMs,
      log = quiet,
      workers = 1,
    }: { store?: Store; leaseMs?: number; log?: typeof quiet; workers?: number } = {},
  ) {
    const handled: string[] = [];
    const stop = new AbortController();
    const queue = createMessageQueue(store, log, async () => {}, {
      pollMs: 20,
      workers,
      clock,
      leaseMs,
      post: createRemoteFetch({ allowPrivate: true, userAgent: "test" }),
    });
    const listening = queue.listen(
      async (message) => {
        const { id } = message as { id: string };
        handled.push(id);
        await handle(id);
      },
      { signal: stop.signal },
    );
    running.push(() => {
      stop.abort();
      return listening;
    });
    return { queue, handled };
  }

  /** A federation on a queue of these options, its queue started, and what sending takes. */
  async function federated(
    options: Omit<Parameters<typeof createMessageQueue>[3], "post">,
    log: Parameters<typeof createMessageQueue>[1] = quiet,
    takeBack: Parameters<typeof createMessageQueue>[2] = async () => {},
  ) {
    // The stand-in inboxes are on loopback; a redirect may go anywhere but to 127.0.0.2.
    const queue = createMessageQueue(scratch.store, log, takeBack, {
      pollMs: 20,
      clock,
      post: createRemoteFetch({
        allowPrivate: (address) => address !== "127.0.0.2",
        userAgent: "test",
      }),
      ...options,
    });
    const federation = createFederation<void>({
      kv: new MemoryKvStore(),
      queue,
      manuallyStartQueue: true,
    });
    const stop = new AbortController();
    const listening = federation.startQueue(undefined, { signal: stop.signal });
    running.push(() => {
      stop.abort();
      return listening;
    });
    const ctx = federation.createContext(new URL("https://site.test/"), undefined);
    const actor = new URL("https://site.test/actor");
    const { privateKey } = await siteKeys;
    return { queue, ctx, actor, keys: { privateKey, keyId: new URL("#main-key", actor) } };
  }

  /** The rows of a message, as stored. */
  const rows = (message: object) =>
    scratch.store.db
      .selectFrom("fediverse_queue")
      .select(["taken_until", "due_at"])
      .where("message", "=", JSON.stringify(message))
      .execute();

  beforeAll(async () => {
    scratch = await scratchStore(backend, { migrated: true });
  });
  beforeEach(async () => {
    at = Date.now();
    await scratch.store.db.deleteFrom("fediverse_queue").execute();
    await scratch.store.db.deleteFrom("fediverse_given_up").execute();
  });
  afterEach(async () => {
    await Promise.all(running.splice(0).map((stop) => stop()));
  });
  afterAll(() => scratch.drop());

  it("counts the messages waiting, due or delayed, not one a worker has in hand", async () => {
    const release = gate();
    const { queue, handled } = instance(() => release.opened);
    try {
      await queue.enqueue({ id: "now" }, {});
      await queue.enqueue(
        { id: "later" },
        { delay: Temporal.Duration.from({ hours: 1 }) as never },
      );
      await waitFor(async () => handled.length === 1, { what: "the due message taken" });
      expect(await queue.getDepth()).toEqual({ queued: 1 });
      release.open();
      await waitFor(async () => (await rows({ id: "now" })).length === 0, {
        what: "the handled message gone",
      });
      expect(await queue.getDepth()).toEqual({ queued: 1 });
    } finally {
      release.open();
    }
  });

  it.each(["done", "failed"])(
    "leaves a message another instance took once its lease ran out to that one, when the first is %s with it",
    async (outcome) => {
      const first = gate();
      const second = gate();
      try {
        const a = instance(async (id) => {
          if (id !== "overrun") return;
          await first.opened;
          if (outcome === "failed") throw new Error("the handler failed");
        });
        await a.queue.enqueue({ id: "overrun" }, {});
        await waitFor(async () => a.handled.includes("overrun"), { what: "the message taken" });
        const b = instance(async (id) => {
          if (id === "overrun") await second.opened;
        });
        at += leaseMs + 60_000;
        await waitFor(async () => b.handled.includes("overrun"), {
          what: "the message taken by the second instance once the lease ran out",
        });
        first.open();
        // The second instance's one worker is busy: the first takes what comes next, once it
        // has settled (or not) the message it overran.
        await a.queue.enqueue({ id: "next" }, {});
        await waitFor(async () => a.handled.includes("next"), { what: "the next message taken" });
        expect((await rows({ id: "overrun" })).map((row) => toIso(row.taken_until ?? ""))).toEqual([
          new Date(at + leaseMs).toISOString(),
        ]);
        second.open();
        await waitFor(async () => (await rows({ id: "overrun" })).length === 0, {
          what: "the message settled by the second instance",
        });
        expect([a.handled, b.handled]).toEqual([["overrun", "next"], ["overrun"]]);
      } finally {
        first.open();
        second.open();
      }
    },
  );

  it("keeps a message's lease while its handler runs, and gives it up when its instance is gone", async () => {
    const lease = 300;
    const other = await scratch.open();
    const release = gate();
    try {
      const start = at;
      const a = instance(() => release.opened, { store: other, leaseMs: lease });
      await a.queue.enqueue({ id: "long" }, {});
      await waitFor(async () => a.handled.includes("long"), { what: "the message taken" });
      const b = instance(async () => {}, { leaseMs: lease });
      at = start + lease * 0.7;
      const renewed = new Date(at + lease).toISOString();
      await waitFor(
        async () =>
          (await rows({ id: "long" })).some((row) => toIso(row.taken_until ?? "") === renewed),
        { what: "the lease renewed while the handler runs" },
      );
      // Past the lease first taken: the other instance takes what comes after, not the message.
      at = start + lease * 1.3;
      await b.queue.enqueue({ id: "after" }, {});
      await waitFor(async () => b.handled.includes("after"), { what: "the later message taken" });
      expect(b.handled).toEqual(["after"]);
      // The first instance is gone (its database closed): nothing renews the lease, which ends.
      await other.close();
      at = start + lease * 5;
      await waitFor(async () => b.handled.includes("long"), {
        what: "the message taken by the other instance",
      });
      await waitFor(async () => (await rows({ id: "long" })).length === 0, {
        what: "the message settled by the other instance",
      });
    } finally {
      release.open();
    }
  });

  it("runs messages that ran past a deadline on one worker at a time, the others going on with the rest", async () => {
    // Deliveries to servers that take the post and never answer, each failed at its run's
    // deadline and due again: they held every worker, and nothing else went, each time.
    await enqueueMessages(scratch.store.db, [{ id: "hung-1" }, { id: "hung-2" }], {}, clock());
    const before = new Date(at - 60_000).toISOString();
    await scratch.store.db
      .updateTable("fediverse_queue")
      .set({ failed_at: before, slow_at: before })
      .execute();
    const answer = gate();
    const { queue, handled } = instance(
      async (id) => {
        if (id.startsWith("hung")) await answer.opened;
      },
      { workers: 2 },
    );
    try {
      await waitFor(async () => handled.length > 0, { what: "a failing message taken" });
      await queue.enqueue({ id: "fresh" }, {});
      await waitFor(async () => handled.includes("fresh"), {
        what: "the fresh message taken while a failing one is in hand",
        timeoutMs: 30_000,
      });
      expect(handled).toEqual(["hung-1", "fresh"]);
      answer.open();
      await waitFor(async () => handled.includes("hung-2"), { what: "the other failing one" });
      await waitFor(async () => (await queue.getDepth()).queued === 0, { what: "all settled" });
    } finally {
      answer.open();
    }
  });

  it("tries a failing message again after ever longer waits, then gives it up and goes on with its key", async () => {
    const warnings: unknown[][] = [];
    const log = { ...quiet, warn: (...args: unknown[]) => void warnings.push(args) };
    const { queue, handled } = instance(
      async (id) => {
        if (id === "poison") throw new TypeError("no answer from https://social.test/users/dee");
      },
      { log },
    );
    const poison = {
      id: "poison",
      type: "fanout",
      activityId: "https://site.test/fediverse/activities/1",
      activityType: "https://www.w3.org/ns/activitystreams#Create",
      inboxes: { "https://social.test/inbox": { actorIds: ["https://social.test/users/dee"] } },
    };
    const tries = () => handled.filter((id) => id === "poison").length;
    /** Waits for the next failure to be settled; the wait it set. */
    const fails = async (count: number) => {
      await waitFor(
        async () => tries() === count && (await rows(poison)).at(0)?.taken_until === null,
        { what: `failure ${count} settled` },
      );
      const [row] = await rows(poison);
      return Date.parse(toIso(row?.due_at ?? "")) - at;
    };
    const start = at;
    await queue.enqueue(poison, { orderingKey: "social.test" });
    await queue.enqueue({ id: "next" }, { orderingKey: "social.test" });
    const waits: number[] = [];
    for (let count = 1; count <= 5; count++) {
      waits.push(await fails(count));
      at += waits.at(-1) ?? 0;
    }
    expect(waits).toEqual([1000, 1000, 2000, 4000, 8000]);
    at = start + 10 * 3_600_000;
    expect(await fails(6)).toBe(3_600_000);
    at = start + 3 * 86_400_000 - 3_600_000;
    expect(await fails(7)).toBe(3_600_000);
    expect(handled).not.toContain("next");
    expect(warnings).toEqual([]);
    // Three days after its first failure: given up, and the next message of its key goes.
    at = start + 3 * 86_400_000;
    await waitFor(async () => handled.includes("next"), { what: "the next message taken" });
    expect(await rows(poison)).toEqual([]);
    expect(tries()).toBe(8);
    expect(warnings).toEqual([
      [
        {
          type: "fanout",
          activityId: poison.activityId,
          activityType: poison.activityType,
          answers: undefined,
          why: "TypeError",
        },
        "a Fediverse queue message was given up after failing for three days",
      ],
    ]);
    // A record for the Health screen, naming no one (the error's message names an account), for 30 days.
    const repository = createFediverseRepository(scratch.store);
    const givenUp = new Date(at);
    const record = { kind: "fanout", activity: poison.activityId, why: "TypeError" };
    expect(await repository.givenUp(givenUp)).toEqual({
      total: 1,
      latest: [{ id: expect.any(Number), ...record, at: givenUp.toISOString() }],
    });
    const lastMoment = new Date(at + 30 * 86_400_000);
    expect(await repository.pruneGivenUp(lastMoment)).toBe(0);
    expect((await repository.givenUp(lastMoment)).total).toBe(1);
    expect(await repository.pruneGivenUp(new Date(lastMoment.getTime() + 1))).toBe(1);
    expect(await repository.givenUp(givenUp)).toEqual({ total: 0, latest: [] });
  });

  it("has Fedify give a message up three days after the queue's clock says it was queued", async () => {
    const moved = gate();
    let asked = false;
    const waits = new Map<string, number | null>();
    const { queue } = instance(async (id) => {
      asked = true;
      if (id === "old") await moved.opened;
      // As Fedify asks, from the handler: its `started` is the system clock's, a second ago.
      const elapsedTime = Temporal.Duration.from({ seconds: 1 }) as never;
      waits.set(id, queue.retryAfterMs({ elapsedTime, attempts: 3 }));
    });
    await queue.enqueue({ id: "old" }, {});
    await waitFor(async () => asked, { what: "the first message in hand" });
    at += 3 * 86_400_000;
    await queue.enqueue({ id: "new" }, {});
    moved.open();
    await waitFor(async () => waits.size === 2, { what: "both messages' retries asked for" });
    expect(Object.fromEntries(waits)).toEqual({ old: null, new: 8000 });
  });

  it("records a delivery Fedify gave up after saying it failed, and none it retried or that went", async () => {
    const delivery = (id: string) => ({
      id,
      type: "outbox",
      activityId: `https://site.test/fediverse/activities/${id}`,
    });
    let queue: ReturnType<typeof instance>["queue"] | undefined;
    const started = instance(async (id) => {
      if (id === "went") return;
      queue?.failed("the inbox answered 401");
      // Fedify retries by queueing the message again, same id, from its handler.
      if (id === "retried")
        await queue?.enqueue(delivery(id), {
          delay: Temporal.Duration.from({ hours: 1 }) as never,
        });
    });
    queue = started.queue;
    for (const id of ["went", "retried", "gone"]) await queue.enqueue(delivery(id), {});
    await waitFor(
      async () =>
        (await scratch.store.db.selectFrom("fediverse_queue").select("id").execute()).length === 1,
      {
        what: "the delivery that went and the one given up settled",
      },
    );
    expect(await rows(delivery("retried"))).toHaveLength(1);
    const repository = createFediverseRepository(scratch.store);
    const { latest } = await repository.givenUp(new Date(at));
    expect(latest.map(({ kind, activity, why }) => ({ kind, activity, why }))).toEqual([
      { kind: "outbox", activity: delivery("gone").activityId, why: "the inbox answered 401" },
    ]);
  });

  it("cuts a delivery its server never answers at its post's deadline, so others go meanwhile, and sends that server one at a time", async () => {
    // Inboxes that take the post and answer only once told to; `most`: the most posts open at once.
    let answering = false;
    const inbox = async (alwaysAnswers = false) => {
      const seen = { posted: 0, answered: 0, open: 0, most: 0, base: "" };
      const server = createServer((request, response) => {
        seen.posted += 1;
        seen.open += 1;
        seen.most = Math.max(seen.most, seen.open);
        request.socket.once("close", () => {
          seen.open -= 1;
        });
        request.resume();
        request.on("end", () => {
          if (!answering && !alwaysAnswers) return;
          seen.answered += 1;
          response.writeHead(202).end();
        });
      });
      await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
      seen.base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      return Object.assign(seen, { server });
    };
    const [a, b, c, d] = [await inbox(), await inbox(), await inbox(), await inbox()];
    const good = await inbox(true);
    const inboxes = [a, b, c, d, good];
    const { queue, ctx, actor, keys } = await federated({
      workers: 4,
      answerMs: answerMs((url) => !answering && url.origin !== good.base),
    });
    try {
      // Accepts of follows: the four workers take the first four, to servers that never answer.
      for (const [n, inbox] of [a, b, c, d, a, a, good].entries()) {
        const to = {
          id: new URL(`${inbox.base}/users/${n}`),
          inboxId: new URL(`${inbox.base}/inbox`),
        };
        await ctx.sendActivity(
          keys,
          to,
          new Update({ id: new URL(`https://site.test/#${n}`), actor }),
        );
      }
      await waitFor(async () => good.answered === 1, {
        what: "the good inbox's delivery gone while the others hang",
        timeoutMs: 30_000,
      });
      // Each cut at its deadline in turn: on a loaded machine, more than 10 s in all.
      await waitFor(async () => a.posted === 3, {
        what: "the never-answering server's three posts",
        timeoutMs: 30_000,
      });
      expect(a.most).toBe(1);
      await waitFor(async () => (await queue.getDepth()).queued === 6, {
        what: "the six cut deliveries back in the queue, none in hand",
      });
      // Cut, not lost: each is tried again, and goes once its server answers.
      answering = true;
      at += 60 * 60_000;
      await waitFor(
        async () =>
          (await scratch.store.db.selectFrom("fediverse_queue").select("id").execute()).length ===
          0,
        {
          what: "every delivery gone",
          timeoutMs: 30_000,
        },
      );
      expect(inboxes.map((inbox) => inbox.answered)).toEqual([3, 1, 1, 1, 1]);
    } finally {
      for (const { server } of inboxes) {
        server.closeAllConnections();
        server.close();
      }
    }
  });

  it("gives a delivery's posts 15 s together, so a server that answers each just in time with a redirect is cut and sent one at a time", async () => {
    // Answers every post a little inside the deadline, with a redirect to a post further on.
    const seen = { runs: 0, posts: 0, open: 0, most: 0 };
    const server = createServer((request, response) => {
      seen.posts += 1;
      if (request.url === "/inbox") seen.runs += 1;
      seen.open += 1;
      seen.most = Math.max(seen.most, seen.open);
      request.socket.once("close", () => {
        seen.open -= 1;
      });
      request.resume();
      setTimeout(() => {
        response.writeHead(307, { location: `/inbox/${seen.posts}`, connection: "close" }).end();
      }, 1000);
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    // The first run has 1.5 s for posts answered each after 1 s; once the server is known slow,
    // its runs need only hang to show that they go one at a time: 0.5 s each.
    const { queue, ctx, actor, keys } = await federated({
      workers: 4,
      answerMs: () => (seen.runs === 0 ? 1500 : 500),
      runMs: 10_000,
    });
    const send = (n: number) =>
      ctx.sendActivity(
        keys,
        { id: new URL(`${base}/users/${n}`), inboxId: new URL(`${base}/inbox`) },
        new Update({ id: new URL(`https://site.test/#${n}`), actor }),
      );
    const waiting = async (count: number) =>
      (await queue.getDepth()).queued === count && seen.open === 0;
    try {
      await send(0);
      await waitFor(async () => seen.runs === 1 && (await waiting(1)), {
        what: "the first delivery back in the queue",
        timeoutMs: 30_000,
      });
      // Cut after its first redirect, not after as many as two minutes allow.
      expect(seen.posts).toBeLessThanOrEqual(2);
      // That server is now sent one delivery at a time: its retry and three more.
      for (const n of [1, 2, 3]) await send(n);
      at += 5000;
      await waitFor(async () => seen.runs === 5 && (await waiting(4)), {
        what: "each delivery tried once more",
        timeoutMs: 30_000,
      });
      expect(seen.most).toBe(1);
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });

  it("tries a message that failed quickly again on any worker when due, while servers that never answer share one", async () => {
    // Inboxes that take the post and never answer (`open`: their posts open now, `most`: at once),
    // one that answers 502 until it is back, then 202, and one that answers.
    const stuck = { open: 0, most: 0 };
    const inbox = async (answer: () => number | null) => {
      const seen = { posts: 0, types: [] as string[], base: "", server: createServer() };
      seen.server.on("request", (request, response) => {
        const chunks: Buffer[] = [];
        request.on("data", (chunk: Buffer) => chunks.push(chunk));
        request.on("end", () => {
          seen.posts += 1;
          seen.types.push(JSON.parse(Buffer.concat(chunks).toString()).type);
          const status = answer();
          if (status !== null) return void response.writeHead(status).end();
          stuck.open += 1;
          stuck.most = Math.max(stuck.most, stuck.open);
          request.socket.once("close", () => {
            stuck.open -= 1;
          });
        });
      });
      await new Promise<void>((resolve) => seen.server.listen(0, "127.0.0.1", resolve));
      seen.base = `http://127.0.0.1:${(seen.server.address() as AddressInfo).port}`;
      return seen;
    };
    const hung = await Promise.all([1, 2, 3, 4, 5].map(() => inbox(() => null)));
    const triedAgain = () => hung.filter((one) => one.posts >= 2).length;
    // How many hung servers had been tried again when each retry that failed quickly arrived.
    const behind: number[] = [];
    let flakyBack = false;
    const arrived = () => {
      behind.push(triedAgain());
      return 202;
    };
    const flaky = await inbox(() => (flakyBack ? arrived() : 502));
    const good = await inbox(arrived);
    const send = (
      to: Awaited<ReturnType<typeof inbox>>,
      n: string,
      Activity: typeof Update | typeof Delete = Update,
    ) =>
      ctx.sendActivity(
        keys,
        { id: new URL(`${to.base}/users/${n}`), inboxId: new URL(`${to.base}/inbox`) },
        new Activity({ id: new URL(`https://site.test/#${n}`), actor }),
      );
    // The owner's take-back: its first run fails at once (the database out of reach a moment).
    let takeBacks = 0;
    // Held 1 s each: the retries that fail quickly must come while the first three are tried again.
    const hungBases = new Set(hung.map((one) => one.base));
    const { queue, ctx, actor, keys } = await federated(
      { workers: 4, answerMs: answerMs((url) => hungBases.has(url.origin), 1000) },
      quiet,
      async () => {
        takeBacks += 1;
        if (takeBacks === 1) throw new Error("the database is out of reach a moment");
        await send(good, "answer", Delete);
      },
    );
    try {
      for (const [n, to] of hung.entries()) await send(to, `${n}`);
      await waitFor(async () => (await queue.getDepth()).queued === 5, {
        what: "each hung delivery cut once",
        timeoutMs: 30_000,
      });
      // Their retries due: one worker tries them again, one at a time, 1 s each. Meanwhile an
      // answer's take-back fails once, and a delivery to the flaky inbox.
      stuck.most = 0;
      at += 5000;
      await queue.enqueue({ type: "ewe:take-back", answers: [1], writer: null }, {});
      await send(flaky, "flaky");
      const failedOnce = () =>
        scratch.store.db
          .selectFrom("fediverse_queue")
          .select("id")
          .where("taken_until", "is", null)
          .where((eb) =>
            eb.or([
              eb("message", "like", "%ewe:take-back%"),
              eb("message", "like", `%${flaky.base}%`),
            ]),
          )
          .execute();
      await waitFor(
        async () => takeBacks === 1 && flaky.posts > 0 && (await failedOnce()).length === 2,
        {
          what: "the take-back and the delivery to the flaky inbox failed once",
        },
      );
      // Both due again, after the hung servers' retries.
      flakyBack = true;
      at += 5000;
      await waitFor(async () => behind.length === 2, {
        what: "the retries that failed quickly gone",
        timeoutMs: 30_000,
      });
      // Within seconds, while the first hung servers had their retry, not after them all.
      for (const count of behind) expect(count).toBeLessThanOrEqual(3);
      expect(good.types).toEqual(["Delete"]);
      // The hung servers, tried again, still hold one worker between them.
      await waitFor(async () => triedAgain() === 5, {
        what: "each hung server tried again",
        timeoutMs: 30_000,
      });
      expect(stuck.most).toBe(1);
    } finally {
      for (const { server } of [...hung, flaky, good]) {
        server.closeAllConnections();
        server.close();
      }
    }
  });

  /**
   * A server that takes a post and answers `answer` at once (never, while null), and the
   * one-worker lane, held by each owner's take-back queued until its gate opens.
   */
  async function laneAndServer(gates: number) {
    const state = { answer: null as number | null, posts: 0, takeBacks: 0 };
    const server = createServer((request, response) => {
      request.resume();
      request.on("end", () => {
        state.posts += 1;
        if (state.answer !== null) response.writeHead(state.answer).end();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const opened = Array.from({ length: gates }, gate);
    const { ctx, actor, keys } = await federated(
      { workers: 4, answerMs: answerMs(() => state.answer === null) },
      quiet,
      () => {
        state.takeBacks += 1;
        return opened[state.takeBacks - 1]?.opened ?? Promise.resolve();
      },
    );
    return {
      state,
      open: (lane: number) => opened[lane - 1]?.open(),
      // Queued slow from the first, so that no other worker takes it.
      async holdLane() {
        const now = clock().toISOString();
        await scratch.store.db
          .insertInto("fediverse_queue")
          .values({
            message: JSON.stringify({
              type: "ewe:take-back",
              answers: [state.takeBacks],
              writer: null,
            }),
            due_at: now,
            created_at: now,
            slow_at: now,
          })
          .execute();
      },
      delivery: () =>
        scratch.store.db
          .selectFrom("fediverse_queue")
          .select(["slow_at", "taken_until"])
          .where("message", "like", `%${base}%`)
          .executeTakeFirst(),
      send: () =>
        ctx.sendActivity(
          keys,
          { id: new URL(`${base}/users/dee`), inboxId: new URL(`${base}/inbox`) },
          new Update({ id: new URL("https://site.test/#dee"), actor }),
        ),
      close() {
        for (const one of opened) one.open();
        server.closeAllConnections();
        server.close();
      },
    };
  }

  it("takes a message out of the one-worker lane once its server answers in time there, so its next failure is tried on any worker", async () => {
    // A server that first takes the post and never answers, then answers at once: 502, then 202
    // (Fedify posts a second time, signed another way, when the first is refused).
    const { state, open, holdLane, delivery, send, close } = await laneAndServer(2);
    try {
      await holdLane();
      await waitFor(async () => state.takeBacks === 1, { what: "the lane held" });
      await send();
      // Cut at its deadline; its retry, due while the lane is busy, is left to the lane.
      await waitFor(async () => state.posts === 1 && (await delivery())?.taken_until === null, {
        what: "the delivery cut",
      });
      at += 5000;
      await waitFor(async () => (await delivery())?.slow_at != null, {
        what: "the delivery left to the lane",
      });
      // Its server answers at once now: the lane runs it, and it fails quickly.
      state.answer = 502;
      open(1);
      // Fedify's retry lets go of the row before the lane's run ends and takes it off the lane.
      await waitFor(
        async () => {
          const row = await delivery();
          return state.posts > 1 && row?.taken_until === null && row.slow_at === null;
        },
        { what: "the delivery tried in the lane, and taken off it" },
      );
      // The lane busy again, its next try goes on any worker, and the delivery with it.
      await holdLane();
      await waitFor(async () => state.takeBacks === 2, { what: "the lane held again" });
      state.answer = 202;
      at += 5000;
      await waitFor(async () => (await delivery()) === undefined, {
        what: "the delivery gone while the lane is busy",
      });
    } finally {
      close();
    }
  });

  it("keeps on the one-worker lane, for its hour, a server that hangs again after it was let go", async () => {
    // A server that hangs every other time: let go after each answer in time, each hang would
    // hold one of every worker for the whole deadline.
    const { state, open, holdLane, delivery, send, close } = await laneAndServer(3);
    /** The delivery hangs (on any worker, its server let go) and is left to the busy lane. */
    const hangs = async (lane: number) => {
      state.answer = null;
      const before = state.posts;
      await holdLane();
      await waitFor(async () => state.takeBacks === lane, { what: `the lane held (${lane})` });
      at += 60_000;
      await waitFor(async () => state.posts > before && (await delivery())?.taken_until === null, {
        what: `the delivery cut (${lane})`,
      });
      at += 60_000;
      await waitFor(async () => (await delivery())?.slow_at != null, {
        what: `the delivery left to the lane (${lane})`,
      });
    };
    /** Its server answers at once: the lane runs it, and it fails quickly. */
    const answersInLane = async (lane: number) => {
      state.answer = 502;
      const before = state.posts;
      open(lane);
      await waitFor(async () => state.posts > before && (await delivery())?.taken_until === null, {
        what: `the delivery tried in the lane (${lane})`,
      });
    };
    try {
      await send();
      await hangs(1);
      await answersInLane(1);
      // Let go once: its next try may run on any worker.
      await waitFor(async () => (await delivery())?.slow_at === null, {
        what: "the delivery let go",
      });
      await hangs(2);
      await answersInLane(2);
      // Hung again within the hour: it stays on the lane, answered in time or not, once its run in
      // the lane has ended (the lane free to take the next one).
      await holdLane();
      await waitFor(async () => state.takeBacks === 3, { what: "the lane held (3)" });
      expect((await delivery())?.slow_at).not.toBeNull();
      open(3);
      state.answer = 202;
      at += 60_000;
      await waitFor(async () => (await delivery()) === undefined, { what: "the delivery gone" });
    } finally {
      close();
    }
  });

  it("fails a delivery its server never answers at the run's deadline, tries it again in its place, and keeps nothing the abandoned run does after", async () => {
    // A server that takes the connection and the post, and answers only once told to.
    const posted: string[] = [];
    const hung: ServerResponse[] = [];
    let answering = false;
    const server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on("data", (chunk: Buffer) => chunks.push(chunk));
      request.on("end", () => {
        posted.push(JSON.parse(Buffer.concat(chunks).toString()).type);
        if (answering) response.writeHead(202).end();
        else hung.push(response);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const logged: string[] = [];
    const record = (_: unknown, message: string) => void logged.push(message);
    const log = { error: record, warn: record };
    const { ctx, actor, keys } = await federated({ workers: 1, runMs: 2000 }, log);
    try {
      const to = { id: new URL(`${base}/users/dee`), inboxId: new URL(`${base}/inbox`) };
      const note = new URL("https://site.test/notes/1");
      const inOrder = { orderingKey: note.href };
      const id = (tag: string) => new URL(`#${tag}`, note);
      await ctx.sendActivity(
        keys,
        to,
        new Create({ id: id("create"), actor, object: note }),
        inOrder,
      );
      await ctx.sendActivity(
        keys,
        to,
        new Update({ id: id("update"), actor, object: note }),
        inOrder,
      );
      const rows = () =>
        scratch.store.db
          .selectFrom("fediverse_queue")
          .select(["message", "due_at", "taken_until", "failed_at", "slow_at"])
          .orderBy("id")
          .execute();
      await waitFor(async () => hung.length === 1, { what: "the Create posted" });
      await waitFor(
        async () => {
          const [first] = await rows();
          return first?.failed_at != null && first.slow_at != null && first.taken_until === null;
        },
        {
          what: "the delivery failed at its run's deadline, its lease given back, left to the lane",
        },
      );
      const failed = await rows();
      expect(failed.map((row) => JSON.parse(row.message).activityId)).toEqual([
        id("create").href,
        id("update").href,
      ]);
      expect(Date.parse(toIso(failed[0]?.due_at ?? "")) - at).toBe(1000);
      expect(logged).toEqual(["a Fediverse queue message failed"]);
      // The abandoned run's delivery ends (its connection cut): Fedify's retry of it is refused.
      hung[0]?.socket?.destroy();
      await waitFor(async () => logged.length === 2, { what: "the abandoned run's end" });
      expect(logged[1]).toBe("a Fediverse queue message's run ended after its deadline");
      expect(await rows()).toEqual(failed);
      // Due again, in its place, the Create goes first to the server now answering.
      answering = true;
      at += 1000;
      await waitFor(async () => (await rows()).length === 0, { what: "both delivered" });
      expect(posted).toEqual(["Create", "Create", "Update"]);
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });
});
