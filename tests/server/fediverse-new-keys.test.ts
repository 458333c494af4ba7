import { createHash, createPublicKey, createVerify } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { z } from "zod";
import { createDatabase, dropDatabase, freePort } from "../support/postgres.ts";
import { waitFor } from "../support/wait-for.ts";
import { admin, adminEnv } from "./support/admin.ts";
import { remoteAccountKeys } from "./support/remote-keys.ts";
import { runSql } from "./support/sql.ts";
import { backends, startTestApp, type TestApp } from "./support/test-app.ts";

/*
 * New keys, and the servers that kept the old one. A follower's server on
 * loopback checks every post from the site as Mastodon does: the Digest of
 * the body, then the draft-cavage HTTP signature against the key it kept of
 * the site's account, fetching the key again once when that fails (and
 * refusing with 401 when it still fails). The owner rotates the keys and
 * restarts the site: the site sends its account, new key included, to that
 * server as an Update, which verifies, and the server keeps the new key.
 * The same server then hears of an item that comes, goes and comes back.
 */

const activityJson = "application/activity+json";
const patient = { REQUEST_TIMEOUT_SECONDS: "180", IDLE_TIMEOUT_SECONDS: "180" };

const accountSchema = z.object({
  id: z.string(),
  publicKey: z.object({ id: z.string(), publicKeyPem: z.string() }),
});

type Received = {
  type: string;
  verified: boolean;
  /** Whether the kept key failed and the key was fetched again. */
  refetched: boolean;
  body: Record<string, unknown>;
};

/** A Mastodon-like server with one account, Lee, who follows the site. */
async function followersServer() {
  const keys = await remoteAccountKeys();
  /** Keys kept of remote accounts, by key id, as Mastodon keeps them with the account. */
  const kept = new Map<string, string>();
  const received: Received[] = [];
  let base = "";

  async function fetchKey(keyId: string): Promise<string | null> {
    const answer = await fetch(keyId, { headers: { accept: activityJson } });
    if (!answer.ok) return null;
    const account = accountSchema.safeParse(await answer.json());
    if (!account.success || account.data.publicKey.id !== keyId) return null;
    kept.set(keyId, account.data.publicKey.publicKeyPem);
    return account.data.publicKey.publicKeyPem;
  }

  function verifies(request: IncomingMessage, signature: Record<string, string>, key: string) {
    const signed = (signature.headers ?? "date")
      .split(" ")
      .map((name) =>
        name === "(request-target)"
          ? `(request-target): ${request.method?.toLowerCase()} ${request.url}`
          : `${name}: ${request.headers[name]}`,
      )
      .join("\n");
    return createVerify("RSA-SHA256")
      .update(signed)
      .verify(createPublicKey(key), signature.signature ?? "", "base64");
  }

  async function inbox(request: IncomingMessage, body: Buffer): Promise<number> {
    // RFC 9421 is not understood here, as on Mastodon before 4.4: the sender falls back.
    if (request.headers["signature-input"]) return 401;
    const header = String(request.headers.signature ?? "");
    const signature = Object.fromEntries(
      [...header.matchAll(/(\w+)="([^"]*)"/g)].map(([, name, value]) => [name, value ?? ""]),
    );
    const headers = (signature.headers ?? "").split(" ");
    const digest = `SHA-256=${createHash("sha256").update(body).digest("base64")}`;
    const age = Math.abs(Date.now() - Date.parse(String(request.headers.date)));
    if (
      !signature.keyId ||
      !["(request-target)", "host", "date", "digest"].every((name) => headers.includes(name)) ||
      String(request.headers.digest) !== digest ||
      !(age < 12 * 60 * 60 * 1000)
    ) {
      return 401;
    }
    const activity = JSON.parse(body.toString("utf8")) as Record<string, unknown>;
    const keyId = signature.keyId;
    let key = kept.get(keyId) ?? (await fetchKey(keyId));
    let refetched = false;
    let verified = key !== null && verifies(request, signature, key);
    if (!verified && kept.has(keyId)) {
      refetched = true;
      key = await fetchKey(keyId);
      verified = key !== null && verifies(request, signature, key);
    }
    received.push({ type: String(activity.type), verified, refetched, body: activity });
    if (!verified) return 401;
    // An Update of an account replaces what is kept of it, its key included.
    const object = activity.object as Record<string, unknown> | undefined;
    const account = accountSchema.safeParse(object);
    if (activity.type === "Update" && account.success && account.data.id === activity.actor) {
      kept.set(account.data.publicKey.id, account.data.publicKey.publicKeyPem);
    }
    return 202;
  }

  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      const url = request.url ?? "";
      if (request.method === "POST" && (url === "/inbox" || url === "/users/lee/inbox")) {
        inbox(request, Buffer.concat(chunks)).then(
          (status) => response.writeHead(status).end(),
          () => response.writeHead(500).end(),
        );
        return;
      }
      if (url !== "/users/lee") return response.writeHead(404).end();
      const id = `${base}/users/lee`;
      response.writeHead(200, { "content-type": activityJson }).end(
        JSON.stringify({
          "@context": ["https://www.w3.org/ns/activitystreams", "https://w3id.org/security/v1"],
          id,
          type: "Person",
          preferredUsername: "lee",
          name: "Lee Okafor",
          inbox: `${id}/inbox`,
          endpoints: { sharedInbox: `${base}/inbox` },
          publicKey: { id: `${id}#main-key`, owner: id, publicKeyPem: keys.publicKeyPem },
        }),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    lee: `${base}/users/lee`,
    kept,
    received,
    /** Lee's Follow of `actor`, signed with Lee's key, posted to the site's shared inbox. */
    async follow(site: string, actor: string) {
      const lee = `${base}/users/lee`;
      const follow = { id: `${lee}#follows/1`, type: "Follow", actor: lee, object: actor };
      return fetch(await keys.signed(site, lee, follow));
    },
    close: () => {
      server.closeAllConnections();
      server.close();
    },
  };
}

describe.each(backends)("new keys for the site's account, on %s", (backend) => {
  let site: TestApp | undefined;
  let remote: Awaited<ReturnType<typeof followersServer>>;
  let port: number;
  let siteUrl: string;
  let databaseUrl: string | undefined;
  const dataDir = mkdtempSync(path.join(os.tmpdir(), "ewe-new-keys-"));

  /** The site, started again on the same database; with `clientFiles`, showing those. */
  async function start(clientFiles?: Record<string, string>) {
    site = await startTestApp(backend, {
      dataDir,
      ...(databaseUrl ? { databaseUrl } : {}),
      ...(clientFiles ? { clientFiles } : {}),
      env: {
        SITE_URL: siteUrl,
        FEDIVERSE_HANDLE: "arjun",
        ALLOW_PRIVATE_ADDRESSES_IN_TESTS: "on",
        ...patient,
      },
    });
    await site.app.listen({ host: "127.0.0.1", port });
    return site;
  }

  beforeAll(async () => {
    remote = await followersServer();
    port = await freePort();
    siteUrl = `http://127.0.0.1:${port}`;
    if (backend === "postgres") {
      databaseUrl = await createDatabase(
        inject("postgresUrl"),
        "ewe_test",
        inject("postgresTemplate"),
      );
    }
    await start();
  }, 240_000);
  afterAll(async () => {
    await site?.close();
    remote?.close();
    if (databaseUrl) await dropDatabase(databaseUrl);
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("sends its account with the new key to its followers' servers after the keys are rotated, and they verify it", {
    timeout: 300_000,
  }, async () => {
    const actor = `${siteUrl}/fediverse/actors/site`;
    const keyId = `${actor}#main-key`;
    expect((await remote.follow(siteUrl, actor)).status).toBe(202);
    // The Accept comes signed with the first key, which Lee's server fetches and keeps.
    await waitFor(
      async () => remote.received.some((one) => one.type === "Accept" && one.verified),
      {
        timeoutMs: 180_000,
        what: "the site's Accept verified by the follower's server",
      },
    );
    const first = remote.kept.get(keyId);
    expect(first).toMatch(/^-----BEGIN PUBLIC KEY-----/);

    // The first start may have sent its account already, with the first key, had
    // Lee's Follow come in before it looked for followers: only what comes after counts.
    const before = remote.received.length;
    const env = adminEnv(site as TestApp);
    expect((await admin(env, "fediverse", "rotate-keys")).code).toBe(0);
    await site?.close();
    site = undefined;
    const restarted = await start();

    // At its start the site tells Lee's server of its new key, signed with it. The
    // first start's Update, with the first key, may still arrive after `before`.
    const update = () =>
      remote.received
        .slice(before)
        .find(
          (one) =>
            one.type === "Update" &&
            accountSchema.safeParse(one.body.object).data?.publicKey.publicKeyPem !== first,
        );
    await waitFor(async () => update() !== undefined, {
      timeoutMs: 180_000,
      what: "the account's Update with its new key at the follower's server",
    });
    expect(update()).toMatchObject({ verified: true, refetched: true });
    const served = accountSchema.parse(
      await (await fetch(actor, { headers: { accept: activityJson } })).json(),
    );
    expect(served.publicKey.publicKeyPem).not.toBe(first);
    expect(accountSchema.parse(update()?.body.object).publicKey.publicKeyPem).toBe(
      served.publicKey.publicKeyPem,
    );
    expect(remote.kept.get(keyId)).toBe(served.publicKey.publicKeyPem);
    expect(
      await runSql(restarted, "select path from fediverse_published where path = ?", [
        "/fediverse/account",
      ]),
    ).toHaveLength(1);
    // Nothing is refused along the way, and the rotation is in the audit trail.
    expect(remote.received.filter((one) => !one.verified)).toEqual([]);
    expect(
      await runSql(restarted, "select action from owner_audit where action = ?", [
        "fediverse rotate-keys",
      ]),
    ).toHaveLength(1);
  });

  it("sends a new item as a Create, a removed one as a Delete, and one back on the site as a Create again", {
    timeout: 300_000,
  }, async () => {
    const article = `${siteUrl}/fediverse/items/science/soap`;
    const soap = {
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
    };
    const restart = async (clientFiles: Record<string, string>) => {
      await site?.close();
      site = undefined;
      return start(clientFiles);
    };
    /** The verified activities of `type` about the soap item at Lee's server. */
    const about = (type: string) =>
      remote.received.filter(
        (one) =>
          one.type === type &&
          one.verified &&
          (one.body.object as { id?: unknown } | undefined)?.id === article,
      );
    const arrived = (type: string, count: number) =>
      waitFor(async () => about(type).length === count, {
        timeoutMs: 180_000,
        what: `${count} ${type} of the item at the follower's server`,
      });

    await restart(soap);
    await arrived("Create", 1);
    // Dated by its day alone, months ago, it goes as published now, unedited: Mastodon puts
    // in its followers' home timelines only what was published within the last six hours.
    const created = about("Create")[0]?.body.object as { published?: string; updated?: string };
    expect(Date.now() - Date.parse(created.published ?? "")).toBeLessThan(60_000);
    expect(created.updated).toBeUndefined();
    // Gone from the site: a Delete, and its address answers with a tombstone.
    const without = await restart({ "feed.json": JSON.stringify({ items: [] }) });
    await arrived("Delete", 1);
    const gone = await without.app.inject({ url: article, headers: { accept: activityJson } });
    expect(gone.statusCode).toBe(410);
    expect(gone.json()).toMatchObject({ type: "Tombstone", formerType: "Article", id: article });
    // Back, the same as before: a Create again, and its address serves it.
    const back = await restart(soap);
    await arrived("Create", 2);
    const served = await back.app.inject({ url: article, headers: { accept: activityJson } });
    expect(served.json()).toMatchObject({ type: "Article", id: article });
    expect(about("Update")).toEqual([]);
  });
});
