import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import fastifyRateLimit from "@fastify/rate-limit";
import Fastify from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createWebmentions } from "../../server/fediverse/webmentions.ts";
import { createRemoteFetch } from "../../server/lib/safe-fetch.ts";
import { waitFor } from "../support/wait-for.ts";
import { scratchStore } from "./support/scratch-store.ts";
import { runSql } from "./support/sql.ts";
import { backends, siteUrl, soapFeed, startTestApp, type TestApp } from "./support/test-app.ts";

/** An app of its own with the site's one registration of rate limits, as server/app.ts makes it. */
async function siteApp() {
  const app = Fastify();
  await app.register(fastifyRateLimit, { global: false });
  return app;
}

/*
 * Checking a mention against its source (server/fediverse/webmentions.ts),
 * against a source page on loopback that links to the item but whose check
 * throws: its `<base href>` is no address, and the h-entry's parser throws
 * on resolving the picture's relative address against it; and one that
 * links to it plainly (`/linking`). And sending: the endpoints remote pages
 * advertise, on loopback, where only the stand-in's 127.0.0.1 is let through.
 * And at the site's own endpoint: what a comment could not say waits for the owner.
 */

const target = `${siteUrl}/science/soap`;
const unreadable = `<!doctype html><base href="http://[::1"><article class="h-entry">
<p class="p-content">Soap, <a href="${target}">explained</a>.</p><img src="soap.png" alt=""></article>`;
const linking = `<!doctype html><article class="h-entry"><p class="p-content">Soap, <a href="${target}/">explained</a>.</p></article>`;
/**
 * Pages that name the item where none of their readers sees a link to it, by path
 * under `/unseen/`, and the type each is given as.
 */
const unseen: Record<string, [string, string]> = {
  comment: ["text/html", `<!doctype html><p>Hello</p><!-- <a href="${target}">soap</a> -->`],
  script: ["text/html", `<!doctype html><script>const a = '<a href="${target}">';</script>`],
  template: ["text/html", `<!doctype html><template><a href="${target}">soap</a></template>`],
  hidden: ["text/html", `<!doctype html><div hidden><p><a href="${target}">soap</a></p></div>`],
  styled: [
    "text/html",
    `<!doctype html><p style="color: red; display: none"><a href="${target}">soap</a></p>`,
  ],
  head: [
    "text/html",
    `<!doctype html><head><link rel="canonical" href="${target}"></head><p>Hi</p>`,
  ],
  text: [
    "text/html",
    `<!doctype html><p>Write it so: <code>&lt;a href="${target}"&gt;</code> href=${target} </p>`,
  ],
  typed: ["text/x-html-source", `<a href="${target}">soap</a>`],
};

describe.each(backends)("webmentions received, on %s", (backend) => {
  let scratch: Awaited<ReturnType<typeof scratchStore>>;
  let source = "";
  /** Answers to `/slow/…` pages, held until the test lets them go, by path. */
  const held = new Map<string, () => void>();
  let letGo = false;
  /** The author `/signed` pages name. */
  let signedBy = "Ada";
  /** How often each page was asked for, by path. */
  const asked = new Map<string, number>();
  const server = createServer((request, response) => {
    asked.set(request.url ?? "", (asked.get(request.url ?? "") ?? 0) + 1);
    if (request.url?.includes("/signed")) {
      response.writeHead(200, { "content-type": "text/html" }).end(
        `<!doctype html><article class="h-entry"><a class="p-author h-card" href="https://ada.example/">${signedBy}</a>
<p class="e-content">Soap, <a href="${target}">explained</a>.</p></article>`,
      );
      return;
    }
    // A page of a site the owner trusts that sends its reader to another site's.
    if (request.url?.endsWith("/away")) {
      const elsewhere = source.replace("127.0.0.1", "localhost");
      response.writeHead(302, { location: `${elsewhere}/linking` }).end();
      return;
    }
    const [type, page] = unseen[request.url?.split("/unseen/")[1] ?? ""] ?? [];
    if (type && page) return response.writeHead(200, { "content-type": type }).end(page);
    if (request.url?.includes("/slow/") && !letGo) {
      held.set(request.url, () => response.writeHead(404).end());
      return;
    }
    response
      .writeHead(200, { "content-type": "text/html" })
      .end(request.url?.endsWith("/linking") ? linking : unreadable);
  });

  beforeAll(async () => {
    scratch = await scratchStore(backend, { migrated: true });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    source = `http://127.0.0.1:${(server.address() as AddressInfo).port}/notes`;
  });
  afterAll(async () => {
    server.close();
    await scratch.drop();
  });

  const logged: string[] = [];
  const webmentionsOf = (
    allowPrivateAddresses = true,
    moderation: "off" | "all" | "first" = "all",
    store = scratch.store,
  ) =>
    createWebmentions({
      store,
      siteUrl,
      remoteFetch: createRemoteFetch({ allowPrivate: true, userAgent: "test" }),
      allowPrivateAddresses,
      items: () => new Map([["/science/soap", {}]]),
      moderation: () => moderation,
      log: {
        // Why a fetch failed, with its line: a test that fails on one says so.
        info: (object, message) => {
          const { err } = object as { err?: unknown };
          logged.push(err instanceof Error ? `${message}: ${err.message}` : message);
        },
        warn: () => {},
      },
      changed: () => {},
    });

  /** A mention of the soap post from `from`, as the endpoint records it, received `at`. */
  const mentionRow = (
    from: string,
    status: "published" | "unverified",
    at = new Date().toISOString(),
  ) => ({
    source: from,
    status,
    target,
    path: "/science/soap",
    kind: "mention" as const,
    received_at: at,
    verified_at: status === "published" ? at : null,
  });

  it("keeps a mention the owner approved as it was, and forgets a new one", async () => {
    const webmentions = webmentionsOf();
    const { db } = scratch.store;
    const received = new Date().toISOString();
    // Approved before, and sent again; and a new one from the same page.
    await db
      .insertInto("webmentions")
      .values([
        {
          source: `${source}/1`,
          target,
          path: "/science/soap",
          status: "published",
          kind: "mention",
          author_name: "Ada",
          content: "Soap, explained.",
          received_at: received,
        },
        {
          source: `${source}/2`,
          target,
          path: "/science/soap",
          status: "unverified",
          kind: "mention",
          received_at: received,
        },
      ])
      .execute();
    await webmentions.wake();
    const rows = await db
      .selectFrom("webmentions")
      .select(["source", "status", "author_name", "content", "verified_at"])
      .execute();
    expect(rows).toEqual([
      {
        source: `${source}/1`,
        status: "published",
        author_name: "Ada",
        content: "Soap, explained.",
        verified_at: expect.anything(),
      },
    ]);
    expect(logged).toContain("a webmention stays as it was");
  });

  it("takes no mention from a page that names the item only where its readers see no link", async () => {
    const webmentions = webmentionsOf(true, "off");
    const { db } = scratch.store;
    const sources = Object.keys(unseen).map((name) => `${source}/unseen/${name}`);
    await db
      .insertInto("webmentions")
      .values([...sources, `${source}/seen/linking`].map((from) => mentionRow(from, "unverified")))
      .execute();
    await webmentions.wake();
    const rows = await db
      .selectFrom("webmentions")
      .select(["source", "status"])
      .where((eb) => eb.or([eb("source", "like", "%/unseen/%"), eb("source", "like", "%/seen/%")]))
      .execute();
    // The page with a link its readers see is shown; none of the others is kept.
    expect(rows).toEqual([{ source: `${source}/seen/linking`, status: "published" }]);
    await db.deleteFrom("webmentions").execute();
  });

  it("publishes at once, when only first mentions wait, a mention from a site the owner approved before, not one it redirects to", async () => {
    const webmentions = webmentionsOf(true, "first");
    const { db } = scratch.store;
    const elsewhere = source.replace("127.0.0.1", "localhost");
    await db
      .insertInto("webmentions")
      .values([
        mentionRow(`${source}/approved`, "published"),
        mentionRow(`${source}/trusted/linking`, "unverified"),
        mentionRow(`${elsewhere}/first/linking`, "unverified"),
        // Its words are another site's: that one has had none approved.
        mentionRow(`${source}/trusted/away`, "unverified"),
      ])
      .execute();
    await webmentions.wake();
    const rows = await db
      .selectFrom("webmentions")
      .select(["source", "status"])
      .where((eb) => eb.or([eb("source", "like", "%/linking"), eb("source", "like", "%/away")]))
      .orderBy("source")
      .execute();
    expect(rows).toEqual([
      { source: `${source}/trusted/away`, status: "pending" },
      { source: `${source}/trusted/linking`, status: "published" },
      { source: `${elsewhere}/first/linking`, status: "pending" },
    ]);
    await db.deleteFrom("webmentions").execute();
  });

  it("shows at most three mentions of an item from one site before the owner lets more through", async () => {
    const webmentions = webmentionsOf(true, "off");
    const { db } = scratch.store;
    const elsewhere = source.replace("127.0.0.1", "localhost");
    // A site's pages are its to make: a fourth that links to the item waits, another site's shows.
    await db
      .insertInto("webmentions")
      .values([
        ...[1, 2, 3].map((page) => mentionRow(`${source}/${page}`, "published")),
        mentionRow(`${source}/4/linking`, "unverified"),
        mentionRow(`${elsewhere}/5/linking`, "unverified"),
      ])
      .execute();
    await webmentions.wake();
    const rows = await db
      .selectFrom("webmentions")
      .select(["source", "status"])
      .where("source", "like", "%/linking")
      .orderBy("source")
      .execute();
    expect(rows).toEqual([
      { source: `${source}/4/linking`, status: "pending" },
      { source: `${elsewhere}/5/linking`, status: "published" },
    ]);
    await db.deleteFrom("webmentions").execute();
  });

  it("shows at most 20 mentions of an item a day without the owner, whatever sites they come from", async () => {
    const webmentions = webmentionsOf(true, "off");
    const { db } = scratch.store;
    // One domain's names without end, each a site of its own: twenty shown today, one yesterday.
    const yesterday = new Date(Date.now() - 2 * 86_400_000).toISOString();
    await db
      .insertInto("webmentions")
      .values([
        mentionRow("https://old.flood.example/1", "published", yesterday),
        ...Array.from({ length: 19 }, (_, n) =>
          mentionRow(`https://s${n}.flood.example/1`, "published"),
        ),
        mentionRow(`${source}/day/linking`, "unverified"),
      ])
      .execute();
    await webmentions.wake();
    const statusOf = async (from: string) =>
      (
        await db
          .selectFrom("webmentions")
          .select("status")
          .where("source", "=", from)
          .executeTakeFirstOrThrow()
      ).status;
    // The twentieth of the day shows; the twenty-first waits for the owner.
    expect(await statusOf(`${source}/day/linking`)).toBe("published");
    const next = `${source.replace("127.0.0.1", "localhost")}/day/linking`;
    await db.insertInto("webmentions").values(mentionRow(next, "unverified")).execute();
    await webmentions.wake();
    expect(await statusOf(next)).toBe("pending");
    await db.deleteFrom("webmentions").execute();
  });

  it("sends an approved mention back for approval when its author's name changes", async () => {
    const webmentions = webmentionsOf();
    const { db } = scratch.store;
    const from = `${source}/signed`;
    await db
      .insertInto("webmentions")
      .values({
        source: from,
        target,
        path: "/science/soap",
        status: "unverified",
        kind: "mention",
        received_at: new Date().toISOString(),
      })
      .execute();
    const checked = async () => {
      await webmentions.wake();
      return db
        .selectFrom("webmentions")
        .select(["status", "author_name"])
        .where("source", "=", from)
        .executeTakeFirstOrThrow();
    };
    expect(await checked()).toEqual({ status: "pending", author_name: "Ada" });
    // The owner approves it; checked again unchanged, it stays.
    await db
      .updateTable("webmentions")
      .set({ status: "published" })
      .where("source", "=", from)
      .execute();
    const again = () =>
      db.updateTable("webmentions").set({ verified_at: null }).where("source", "=", from).execute();
    await again();
    expect(await checked()).toEqual({ status: "published", author_name: "Ada" });
    // The same words under another name (the owner's, say): the owner sees it again first.
    signedBy = "Site Owner";
    await again();
    expect(await checked()).toEqual({ status: "pending", author_name: "Site Owner" });
  });

  it("keeps one mention of a page from a source, however the target's address is written", async () => {
    const app = await siteApp();
    const webmentions = webmentionsOf();
    await webmentions.routes(app);
    const from = `${source}/linking`;
    for (const written of [target, `${target}/`, `${target}?`, `${target}/#mentions`]) {
      const response = await app.inject({
        method: "POST",
        url: "/webmention",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        payload: new URLSearchParams({ source: from, target: written }).toString(),
      });
      expect(response.statusCode, written).toBe(202);
    }
    await webmentions.wake();
    const { db } = scratch.store;
    const rows = await db
      .selectFrom("webmentions")
      .select(["target", "status"])
      .where("source", "=", from)
      .execute();
    // One mention under the item, not one for each way of writing its address.
    expect(rows).toEqual([{ target, status: "pending" }]);
    await app.close();
  });

  /** Posts a mention of the soap post from `from`, sent from `remoteAddress`. */
  const mentionFrom = (app: ReturnType<typeof Fastify>, remoteAddress: string, from: string) =>
    app.inject({
      method: "POST",
      url: "/webmention",
      remoteAddress,
      headers: { "content-type": "application/x-www-form-urlencoded" },
      payload: new URLSearchParams({ source: from, target }).toString(),
    });
  /** Lets the slow pages answer (404: their mentions go) and waits for every check. */
  const releaseSlow = async (webmentions: ReturnType<typeof webmentionsOf>) => {
    letGo = true;
    for (const release of held.values()) release();
    held.clear();
    await webmentions.wake();
    letGo = false;
  };

  it("holds at most 20 mentions waiting from one network, so its slow pages cannot hold the rest for hours", async () => {
    const app = await siteApp();
    const webmentions = webmentionsOf();
    await webmentions.routes(app);
    const elsewhere = source.replace("127.0.0.1", "localhost");
    // Two subscribers of one IPv6 network (/48), 12 and 8 from their /64s, of two sites' slow pages.
    const sent = [];
    for (let n = 0; n < 20; n++) {
      const from = `${n % 2 === 0 ? source : elsewhere}/slow/${n}`;
      sent.push(await mentionFrom(app, `2001:db8:1:${n < 12 ? 1 : 2}::7`, from));
    }
    expect(sent.map((response) => response.statusCode)).toEqual(Array(20).fill(202));
    const third = await mentionFrom(app, "2001:db8:1:3::7", `${source}/slow/20`);
    expect(third.statusCode).toBe(429);
    expect(third.json().error.message).toBe(
      "Too many webmentions from your network are waiting; try later.",
    );
    expect(third.headers["retry-after"]).toBe("300");
    // Another network's mention is taken meanwhile, and fetched beside the first network's
    // first: that network's mentions are fetched one at a time, whichever site they name.
    expect((await mentionFrom(app, "2001:db8:2::7", `${elsewhere}/slow/other`)).statusCode).toBe(
      202,
    );
    await waitFor(async () => held.size === 2, { what: "two slow pages fetched" });
    expect([...held.keys()].sort(), logged.join("\n")).toEqual([
      "/notes/slow/0",
      "/notes/slow/other",
    ]);
    // Once they are checked (their pages answer 404 and they go), the network may send again.
    await releaseSlow(webmentions);
    expect((await mentionFrom(app, "2001:db8:1:3::7", `${source}/slow/21`)).statusCode).toBe(202);
    await releaseSlow(webmentions);
    await app.close();
  });

  it("refuses past 30 mentions a minute from one address and 300 from its network, as the site's other limits", async () => {
    const app = await siteApp();
    const webmentions = webmentionsOf();
    await webmentions.routes(app);
    const answers = [];
    // Thirty from each of ten /64s of one /48: past its share of the queue, still counted.
    for (let subnet = 1; subnet <= 10; subnet += 1) {
      for (let n = 0; n < 30; n += 1) {
        answers.push(
          (await mentionFrom(app, `2001:db8:5:${subnet}::1`, `${source}/many/${subnet}-${n}`))
            .statusCode,
        );
      }
      const past = await mentionFrom(
        app,
        `2001:db8:5:${subnet}::1`,
        `${source}/many/${subnet}-past`,
      );
      expect(past.statusCode).toBe(429);
      expect(past.json().error.message).toBe("Too many webmentions from your address; try later.");
      expect(Number(past.headers["retry-after"])).toBeGreaterThan(0);
    }
    expect(answers).not.toContain(500);
    const fromNetwork = await mentionFrom(app, "2001:db8:5:ff::1", `${source}/many/network`);
    expect(fromNetwork.json().error.message).toBe(
      "Too many webmentions from your network; try later.",
    );
    await webmentions.wake();
    await scratch.store.db.deleteFrom("webmentions").execute();
    await app.close();
  });

  it("takes and checks another site's mention at once while one site's slow pages fill their share of the queue", async () => {
    const app = await siteApp();
    const webmentions = webmentionsOf();
    await webmentions.routes(app);
    // One site's 20 slow pages, each from a network of its own: the site's share is full.
    for (let n = 0; n < 20; n++) {
      const response = await mentionFrom(app, `203.0.113.${n + 1}`, `${source}/slow/site-${n}`);
      expect(response.statusCode, `${n}`).toBe(202);
    }
    const more = await mentionFrom(app, "203.0.113.100", `${source}/slow/site-20`);
    expect(more.statusCode).toBe(429);
    expect(more.json().error.message).toBe(
      "Too many webmentions of that site's pages are waiting; try later.",
    );
    expect(more.headers["retry-after"]).toBe("300");
    // Another site's mention is taken, and checked while the slow site's first page still hangs.
    const other = `${source.replace("127.0.0.1", "localhost")}/linking`;
    expect((await mentionFrom(app, "198.51.100.7", other)).statusCode).toBe(202);
    const { db } = scratch.store;
    await waitFor(
      async () =>
        (await db.selectFrom("webmentions").select("status").where("source", "=", other).execute())
          .map((row) => row.status)
          .join() === "pending",
      { what: "the other site's mention checked" },
    );
    // The slow site's pages are fetched one at a time: one hangs, the rest wait their turn.
    expect(held.size).toBe(1);
    await releaseSlow(webmentions);
    await db.deleteFrom("webmentions").execute();
    await app.close();
  });

  // Several processes share one database only on PostgreSQL (SHARE_PORT, decision 083).
  it.runIf(backend === "postgres")(
    "checks a waiting mention once, and fetches its source once, when two instances look at once",
    async () => {
      // Two instances on one PostgreSQL: two stores, two pools, as two processes.
      const second = await scratch.open();
      const [one, two] = [webmentionsOf(), webmentionsOf(true, "all", second)];
      const page = `${source}/slow/looked-at-twice`;
      await scratch.store.db
        .insertInto("webmentions")
        .values(mentionRow(page, "unverified"))
        .execute();
      let settled = false;
      const both = [one.wake(), two.wake()];
      const first = Promise.race(both).then(() => {
        settled = true;
      });
      // The source hangs: whichever instance fetched it holds the mention; the other leaves it.
      await waitFor(
        async () =>
          (asked.get(new URL(page).pathname) ?? 0) > 0 &&
          (settled || (asked.get(new URL(page).pathname) ?? 0) > 1),
        {
          what: "one instance done looking, or a second fetch",
        },
      );
      expect(asked.get(new URL(page).pathname)).toBe(1);
      await first;
      letGo = true;
      for (const release of held.values()) release();
      held.clear();
      await Promise.all(both);
      letGo = false;
      // Its source answered 404: the mention is gone, fetched once in all.
      expect(asked.get(new URL(page).pathname)).toBe(1);
      const left = await scratch.store.db.selectFrom("webmentions").select("id").execute();
      expect(left).toEqual([]);
      await second.close();
    },
  );

  it("refuses a source longer, once %-escaped, than the database's index and the site's export take", async () => {
    const app = await siteApp();
    await webmentionsOf().routes(app);
    // 1,918 characters, sent as UTF-8 (under the form's 8 kB); some 17,000 as stored, and
    // varied, so over PostgreSQL's 2,704 bytes an index row once compressed.
    const words = Array.from({ length: 1918 - source.length - 1 }, (_, at) =>
      String.fromCodePoint(0x4e00 + ((at * 7919) % 20000)),
    );
    const long = `${source}/${words.join("")}`;
    expect(long).toHaveLength(1918);
    const response = await app.inject({
      method: "POST",
      url: "/webmention",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      payload: `source=${long}&target=${encodeURIComponent(target)}`,
    });
    expect(response.statusCode).toBe(400);
    expect(response.json().error.message).toBe(
      "The source and target must be http(s) addresses, each at most 2000 characters once %-escaped.",
    );
    const kept = await scratch.store.db.selectFrom("webmentions").select("source").execute();
    expect(kept.filter((row) => row.source.length > 2000)).toEqual([]);
    await app.close();
  });

  // Once, on SQLite: an app of its own refuses these addresses before any statement.
  if (backend === "sqlite") {
    describe("whatever the database", () => {
      it("refuses at once a source on a private address or a name that is not on the internet", async () => {
        const app = await siteApp();
        await webmentionsOf(false).routes(app);
        const privateSource = "The source must be a page on the public web.";
        // A public site on another port than the web's: the site would knock on its mail or database.
        const otherPort = "The source must be a page on the web's own port (80 or 443).";
        const refused: [string, string][] = [
          ["http://169.254.169.254/latest/meta-data/", privateSource],
          ["http://[::ffff:127.0.0.1]/", privateSource],
          ["http://2130706433/", privateSource],
          ["http://0x0a.0.0.1/", privateSource],
          ["http://localhost:6379/", privateSource],
          ["http://metadata.google.internal/computeMetadata/v1/", privateSource],
          ["http://93.184.215.14:25/", otherPort],
          ["https://example.org:6379/", otherPort],
          ["http://example.org:443/", otherPort],
        ];
        for (const [from, message] of refused) {
          const response = await app.inject({
            method: "POST",
            url: "/webmention",
            headers: { "content-type": "application/x-www-form-urlencoded" },
            payload: new URLSearchParams({ source: from, target }).toString(),
          });
          expect(response.statusCode, from).toBe(400);
          expect(response.json().error.message, from).toBe(message);
        }
        await app.close();
      });
    });
  }
});

describe.each(backends)("webmentions at the site's endpoint, on %s", (backend) => {
  let t: TestApp;
  let base = "";
  /** Pages that link to the soap post, saying what their path asks. */
  const said: Record<string, string> = {
    // Short praise, as many a mention is: its page's address is no link it adds.
    "/clean": "Good read on soap for my chemistry class.",
    "/spam": "Soap is fine, but our online casino pays better.",
    "/owner": "Good read on soap for my chemistry class.",
    "/badge": "Good read on soap for my chemistry class.",
  };
  /** Pages that sign their words with a name no commenter may take: the owner's, the badge's. */
  const signed: Record<string, string> = { "/owner": "Ravi Kumar", "/badge": "Site Owner" };
  const pages = createServer((request, response) => {
    const by = signed[request.url ?? ""];
    const author = by ? `<a class="p-author h-card" href="https://ravi.example/">${by}</a>` : "";
    response
      .writeHead(200, { "content-type": "text/html" })
      .end(
        `<!doctype html><article class="h-entry">${author}<p class="e-content">${said[request.url ?? ""] ?? ""} <a href="${target}">Soap</a></p></article>`,
      );
  });
  beforeAll(async () => {
    t = await startTestApp(backend, {
      env: { ALLOW_PRIVATE_ADDRESSES_IN_TESTS: "on", SITE_OWNER_NAME: "Ravi Kumar" },
      clientFiles: { "feed.json": JSON.stringify(soapFeed) },
    });
    await new Promise<void>((resolve) => pages.listen(0, "127.0.0.1", resolve));
    base = `http://127.0.0.1:${(pages.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    pages.close();
    await t?.close();
  });

  it("holds for the owner, whatever MODERATION says, a mention whose words or author's name a comment could not use", async () => {
    for (const page of ["/spam", "/owner", "/badge", "/clean"]) {
      const response = await t.app.inject({
        method: "POST",
        url: "/webmention",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        payload: new URLSearchParams({ source: `${base}${page}`, target }).toString(),
      });
      expect(response.statusCode, page).toBe(202);
    }
    const statuses = async () =>
      Object.fromEntries(
        (await runSql(t, "select source, status from webmentions")).map((row) => [
          new URL(String(row.source)).pathname,
          row.status,
        ]),
      );
    // Checked in the order they came: once the clean one shows, the other was checked.
    await waitFor(async () => (await statuses())["/clean"] === "published", {
      what: "the clean mention shown",
    });
    expect(await statuses()).toEqual({
      "/spam": "pending",
      "/owner": "pending",
      "/badge": "pending",
      "/clean": "published",
    });
  });
});

describe("webmentions sent", () => {
  let scratch: Awaited<ReturnType<typeof scratchStore>>;
  let base = "";
  const posted: string[] = [];
  const server = createServer((request, response) => {
    const port = (server.address() as AddressInfo).port;
    const endpoints: Record<string, string> = {
      "/to-loopback": `http://[::1]:${port}/endpoint`,
      "/to-metadata": "http://169.254.169.254/latest/meta-data/",
      "/mapped": `http://[::ffff:10.0.0.1]:${port}/endpoint`,
      "/elsewhere": `gopher://127.0.0.1:${port}/endpoint`,
      "/relative": "/endpoint",
    };
    const endpoint = endpoints[request.url ?? ""];
    if (request.method === "POST") {
      posted.push(request.url ?? "");
      response.writeHead(202).end();
    } else if (request.url === "/loop") {
      response.writeHead(302, { location: "/loop" }).end();
    } else {
      response
        .writeHead(200, { "content-type": "text/html" })
        .end(`<link rel="webmention" href="${endpoint}">`);
    }
  });

  beforeAll(async () => {
    scratch = await scratchStore("sqlite", { migrated: true });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.close();
    await scratch.drop();
  });

  it("posts to no endpoint on a private address, whatever the page advertises", async () => {
    const webmentions = createWebmentions({
      store: scratch.store,
      siteUrl,
      remoteFetch: createRemoteFetch({
        allowPrivate: (address) => address === "127.0.0.1",
        userAgent: "test",
      }),
      allowPrivateAddresses: true,
      items: () => new Map(),
      moderation: () => "all",
      log: { info: () => {}, warn: () => {} },
      changed: () => {},
    });
    const pages = ["/to-loopback", "/to-metadata", "/mapped", "/elsewhere", "/loop", "/relative"];
    await webmentions.send({
      path: "/science/soap",
      html: pages.map((page) => `<a href="${base}${page}">${page}</a>`).join(" "),
    });
    const sent = await scratch.store.db
      .selectFrom("webmentions_sent")
      .select(["target", "outcome"])
      .orderBy("target")
      .execute();
    expect(
      Object.fromEntries(sent.map(({ target, outcome }) => [new URL(target).pathname, outcome])),
    ).toEqual({
      "/to-loopback": "failed: ::1 is a private address",
      "/to-metadata": "failed: 169.254.169.254 is a private address",
      "/mapped": "failed: ::ffff:a00:1 is a private address",
      "/elsewhere": "no endpoint",
      "/loop": "failed: too many redirects",
      "/relative": "sent",
    });
    // Only the page's own host, let through as a public one would be, was posted to.
    expect(posted).toEqual(["/endpoint"]);
  });
});
