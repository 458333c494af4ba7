import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { signRequest } from "@fedify/fedify";
import { afterAll, afterEach, describe, expect, inject, it } from "vitest";
import { createDatabase, dropDatabase } from "../support/postgres.ts";
import { waitFor } from "../support/wait-for.ts";
import { remoteAccountKeys } from "./support/remote-keys.ts";
import { runSql } from "./support/sql.ts";
import {
  type Backend,
  backends,
  capturedLogs,
  siteUrl,
  startTestApp,
  type TestApp,
} from "./support/test-app.ts";

/*
 * An account on the Fediverse names its own inbox, and could name one on the
 * site's own network (a database on loopback, a cloud's metadata address):
 * the site never posts there. Loopback stand-ins: 127.0.0.1 counts as public
 * here (`privateInboxesAllowed`), 127.0.0.2 is the private address it is.
 */

const refused = "a Fediverse inbox on a private address was refused";

/** A server on `host` that records what is posted to it, and serves accounts when given. */
async function server(host: string, accounts?: (base: string, name: string) => unknown) {
  const posted: { url: string; type: string }[] = [];
  const http = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      if (request.method === "POST") {
        const { type } = JSON.parse(Buffer.concat(chunks).toString()) as { type: string };
        posted.push({ url: request.url ?? "", type });
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

  /** A site whose database holds these followers before it starts, and publishes an item. */
  async function siteFollowedBy(followers: { actor: string; inbox: string }[]) {
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
        "insert into fediverse_followers (actor_id, handle, inbox, follow_id, created_at) values (?, ?, ?, ?, ?)",
        [
          follower.actor,
          `@f${index}@remote`,
          follower.inbox,
          `${follower.actor}#follow`,
          new Date().toISOString(),
        ],
      );
    }
    const logs = capturedLogs("info");
    const t = await startTestApp(backend, {
      dataDir,
      ...(databaseUrl ? { databaseUrl } : {}),
      logger: logs.logger,
      env: { FEDIVERSE_HANDLE: "arjun" },
      privateInboxesAllowed: (address) => address === "127.0.0.1",
      clientFiles: {
        "feed.json": JSON.stringify({
          items: [
            {
              id: `${siteUrl}/science/soap`,
              url: `${siteUrl}/science/soap`,
              title: "How does soap clean?",
              content_html: "<p>Soap holds grease.</p>",
              date_published: "2026-05-01T00:00:00.000Z",
            },
          ],
        }),
      },
    });
    closing.push(() => t.close());
    // What changed is sent once the server listens.
    await t.app.listen({ host: "127.0.0.1", port: 0 });
    return { t, logs };
  }

  it("sends a new item to a follower at a public address, and nothing to one whose inbox is private", {
    timeout: 240_000,
  }, async () => {
    const open = await server("127.0.0.1");
    const hidden = await server("127.0.0.2");
    closing.push(open.close, hidden.close);
    const { t, logs } = await siteFollowedBy([
      { actor: `${open.base}/users/ok`, inbox: `${open.base}/users/ok/inbox` },
      { actor: `${hidden.base}/users/mal`, inbox: `${hidden.base}/users/mal/inbox?key=secret` },
    ]);

    await waitFor(
      async () => open.posted.some(({ type }) => type === "Create") && (await queueEmpty(t)),
      {
        timeoutMs: 180_000,
        what: "the Create delivered and the queue empty",
      },
    );
    expect(open.posted).toContainEqual({ url: "/users/ok/inbox", type: "Create" });
    expect(hidden.posted).toEqual([]);
    const warned = logs.lines.filter((line) => line.msg === refused);
    expect(warned).toContainEqual(
      expect.objectContaining({ level: 40, inbox: `${hidden.base}/users/mal/inbox` }),
    );
    expect(JSON.stringify(logs.lines)).not.toContain("key=secret");
  });

  it("neither keeps nor answers a Follow from an account whose inbox is private", {
    timeout: 240_000,
  }, async () => {
    const hidden = await server("127.0.0.2");
    closing.push(hidden.close);
    const keys = await remoteAccountKeys();
    const spki = Buffer.from(await crypto.subtle.exportKey("spki", keys.publicKey)).toString(
      "base64",
    );
    const publicKeyPem = `-----BEGIN PUBLIC KEY-----\n${spki.match(/.{1,64}/g)?.join("\n")}\n-----END PUBLIC KEY-----\n`;
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
      env: { FEDIVERSE_HANDLE: "arjun", FEDIVERSE_ALLOW_PRIVATE_ADDRESSES_IN_TESTS: "on" },
      privateInboxesAllowed: (address) => address === "127.0.0.1",
    });
    closing.push(() => t.close());
    const follow = async (name: string) => {
      const actor = `${accounts.base}/users/${name}`;
      const request = await signRequest(
        new Request(`${siteUrl}/fediverse/inbox`, {
          method: "POST",
          headers: { "content-type": "application/activity+json" },
          body: JSON.stringify({
            "@context": "https://www.w3.org/ns/activitystreams",
            id: `${actor}#follows/1`,
            type: "Follow",
            actor,
            object: `${siteUrl}/fediverse/actors/site`,
          }),
        }),
        keys.privateKey,
        new URL(`${actor}#main-key`),
      );
      const answer = await t.app.inject({
        method: "POST",
        url: "/fediverse/inbox",
        headers: Object.fromEntries(request.headers),
        payload: await request.text(),
      });
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
