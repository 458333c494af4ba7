import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import Fastify from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createRemoteFetch } from "../../server/fediverse/safe-fetch.ts";
import { createWebmentions } from "../../server/fediverse/webmentions.ts";
import { scratchStore } from "./support/scratch-store.ts";
import { backends, siteUrl } from "./support/test-app.ts";

/*
 * Checking a mention against its source (server/fediverse/webmentions.ts),
 * against a source page on loopback that links to the item but whose check
 * throws: its `<base href>` is no address, and the h-entry's parser throws
 * on resolving the picture's relative address against it; and one that
 * links to it plainly (`/linking`).
 */

const target = `${siteUrl}/science/soap`;
const unreadable = `<!doctype html><base href="http://[::1"><article class="h-entry">
<p class="p-content">Soap, <a href="${target}">explained</a>.</p><img src="soap.png" alt=""></article>`;
const linking = `<!doctype html><article class="h-entry"><p class="p-content">Soap, <a href="${target}/">explained</a>.</p></article>`;

describe.each(backends)("a webmention whose check throws, on %s", (backend) => {
  let scratch: Awaited<ReturnType<typeof scratchStore>>;
  let source = "";
  const server = createServer((request, response) =>
    response
      .writeHead(200, { "content-type": "text/html" })
      .end(request.url?.endsWith("/linking") ? linking : unreadable),
  );

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
  const webmentionsOf = () =>
    createWebmentions({
      store: scratch.store,
      siteUrl,
      remoteFetch: createRemoteFetch({ allowPrivate: true, userAgent: "test" }),
      allowPrivateAddresses: true,
      items: () => new Map([["/science/soap", {}]]),
      moderation: () => "all",
      log: { info: (_object, message) => logged.push(message), warn: () => {} },
      changed: () => {},
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

  it("keeps one mention of a page from a source, however the target's address is written", async () => {
    const app = Fastify();
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
});
