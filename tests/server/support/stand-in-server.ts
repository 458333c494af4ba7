import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { accountKeysInTurn, injected, remoteAccountKeys } from "./remote-keys.ts";
import { siteUrl } from "./test-app.ts";

const activityJson = "application/activity+json";

/**
 * A stand-in Misskey server on loopback that counts what the site asks of it:
 * its accounts (with their keys, `#main-key` after the account's address),
 * and a context of its own (`/contexts/misskey`) that only JSON-LD's
 * processing of a post would fetch; and keeps what the site delivers to its
 * accounts' inboxes.
 */
export async function misskeyServer() {
  const signers = new Map<string, Awaited<ReturnType<typeof remoteAccountKeys>>>();
  /** Display names given with `newKey`; otherwise "name on Misskey". */
  const displayNames = new Map<string, string>();
  /** Documents served at their paths besides the accounts (`serve`). */
  const documents = new Map<string, { document: unknown; type: string }>();
  /** Each request the site made, as `GET /path`. */
  const asked: string[] = [];
  /** What the site delivered to its accounts' inboxes, parsed, with the inbox it went to. */
  const delivered: { inbox: string; activity: Record<string, unknown> }[] = [];
  let base = "";
  /** Whether the server answers its accounts with 503, as one down for maintenance. */
  let down = false;
  const server: Server = createServer((request, response) => {
    asked.push(`${request.method} ${request.url}`);
    if (down) return response.writeHead(503).end();
    const inbox = /^\/users\/\w+\/inbox$/.exec(request.url ?? "")?.[0];
    if (inbox && signers.has(inbox.split("/")[2] ?? "") && request.method === "POST") {
      const chunks: Buffer[] = [];
      request.on("data", (chunk: Buffer) => chunks.push(chunk));
      request.on("end", () => {
        delivered.push({ inbox, activity: JSON.parse(Buffer.concat(chunks).toString()) });
        response.writeHead(202).end();
      });
      return;
    }
    if (request.url === "/contexts/misskey") {
      return response
        .writeHead(200, { "content-type": "application/ld+json" })
        .end(JSON.stringify({ "@context": { misskey: "https://misskey-hub.net/ns#" } }));
    }
    const served = documents.get(request.url ?? "");
    if (served !== undefined) {
      return response
        .writeHead(200, { "content-type": served.type })
        .end(JSON.stringify(served.document));
    }
    const name = /^\/users\/(\w+)$/.exec(request.url ?? "")?.[1] ?? "";
    const keys = signers.get(name);
    if (!keys) return response.writeHead(404).end();
    const id = `${base}/users/${name}`;
    response.writeHead(200, { "content-type": activityJson }).end(
      JSON.stringify({
        "@context": ["https://www.w3.org/ns/activitystreams", "https://w3id.org/security/v1"],
        id,
        type: "Person",
        preferredUsername: name,
        name: displayNames.get(name) ?? `${name} on Misskey`,
        inbox: `${id}/inbox`,
        publicKey: { id: `${id}#main-key`, owner: id, publicKeyPem: keys.publicKeyPem },
      }),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const actor = (name: string) => `${base}/users/${name}`;
  return {
    base,
    asked,
    delivered,
    actor,
    setDown: (is: boolean) => {
      down = is;
    },
    /** Gives `name` a new key pair (its first, or a rotation), and `displayName`; returns it. */
    newKey: async (name: string, displayName?: string) => {
      const keys = await accountKeysInTurn();
      signers.set(name, keys);
      if (displayName !== undefined) displayNames.set(name, displayName);
      return keys;
    },
    /** Serves `document` at its own address (its `id`, at this server), or at `at`, as `type`. */
    serve: (
      document: { id: string } & Record<string, unknown>,
      at = document.id,
      type = activityJson,
    ) => {
      documents.set(new URL(at).pathname, { document, type });
    },
    /** The activity, signed with `keys` as `name`'s, as inject's request to the shared inbox. */
    signed: async (name: string, activity: Record<string, unknown>, keys = signers.get(name)) =>
      injected(await (keys ?? (await remoteAccountKeys())).signed(siteUrl, actor(name), activity)),
    close: () => {
      server.closeAllConnections();
      server.close();
    },
  };
}
