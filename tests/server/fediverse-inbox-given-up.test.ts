import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { healthResponseSchema } from "../../contract/console.ts";
import { waitFor } from "../support/wait-for.ts";
import { movableClock, threeDaysBetweenTries } from "./support/clock.ts";
import { Owner } from "./support/owner.ts";
import { injected, remoteAccountKeys } from "./support/remote-keys.ts";
import { runSql } from "./support/sql.ts";
import { backends, json, siteUrl, startTestApp, type TestApp } from "./support/test-app.ts";

/*
 * An activity received whose processing fails every time. Dee's server signs
 * a Create whose note is only an address, and that address answers 500 to
 * every try: the site accepts the activity (its signature holds), fails to
 * process it, tries again on the queue's rule, and once it has failed for
 * three days (here: its start moved three days back) gives it up. Health
 * counts it once and shows what it was and why, naming neither Dee nor her
 * server, nor saying a word her server sent.
 */
async function failingServer() {
  const keys = await remoteAccountKeys();
  let base = "";
  let tries = 0;
  const server: Server = createServer((request, response) => {
    request.resume();
    request.on("end", () => {
      if (request.url === "/notes/1") {
        tries++;
        return response.writeHead(500).end("Internal Server Error: dee's note store is down");
      }
      if (request.url !== "/users/dee") return response.writeHead(404).end();
      const id = `${base}/users/dee`;
      response.writeHead(200, { "content-type": "application/activity+json" }).end(
        JSON.stringify({
          "@context": ["https://www.w3.org/ns/activitystreams", "https://w3id.org/security/v1"],
          id,
          type: "Person",
          preferredUsername: "dee",
          name: "Dee Remote",
          inbox: `${id}/inbox`,
          publicKey: { id: `${id}#main-key`, owner: id, publicKeyPem: keys.publicKeyPem },
        }),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const account = `${base}/users/dee`;
  return {
    base,
    tries: () => tries,
    /** Dee's Create of a note given by its address alone, signed, for the site's shared inbox. */
    create: async () =>
      injected(
        await keys.signed(siteUrl, account, {
          id: `${account}/creates/1`,
          type: "Create",
          actor: account,
          object: `${base}/notes/1`,
        }),
      ),
    close: () => {
      server.closeAllConnections();
      server.close();
    },
  };
}

describe.each(backends)("an activity received whose processing always fails, on %s", (backend) => {
  let t: TestApp;
  let remote: Awaited<ReturnType<typeof failingServer>>;
  const clock = movableClock();
  beforeAll(async () => {
    remote = await failingServer();
    t = await startTestApp(backend, {
      env: { FEDIVERSE_HANDLE: "arjun", ALLOW_PRIVATE_ADDRESSES_IN_TESTS: "on" },
      clock: clock.now,
    });
  });
  afterAll(async () => {
    await t?.close();
    remote?.close();
  });

  it("is tried again, then given up and shown once on Health, naming no one", {
    timeout: 180_000,
  }, async () => {
    const owner = new Owner(t);
    expect((await t.app.inject(await remote.create())).statusCode).toBe(202);
    // Tried, failed, and tried again after its wait.
    await waitFor(async () => remote.tries() >= 2, { timeoutMs: 60_000, what: "a second try" });
    // Between two tries, three days pass on the app's clock: the next try is its last.
    await waitFor(async () => threeDaysBetweenTries(t, clock), {
      timeoutMs: 60_000,
      what: "the activity received, between two tries",
    });
    await waitFor(async () => (await runSql(t, "select id from fediverse_queue")).length === 0, {
      timeoutMs: 60_000,
      what: "the activity given up",
    });
    // Back to the present, where the command line's sign-in link is dated.
    clock.set(new Date());
    await owner.signIn();
    const health = async () =>
      json(await owner.get("/api/admin/health"), healthResponseSchema).fediverseGivenUp;
    const tried = remote.tries();
    const shown = await health();
    expect(shown.total).toBe(1);
    expect(shown.latest).toEqual([
      {
        id: expect.any(Number),
        kind: "inbox",
        activity: null,
        // Why, in words an owner reads: the status of the note's address, not Fedify's
        // "HTTP 500: <address>", nor (as before) "the server redirected it too often".
        why: "the server answered 500",
        at: expect.any(String),
      },
    ]);
    // Nothing of Dee's: not her account, her server, her name or the words her server sent.
    const said = JSON.stringify(shown);
    for (const remoteText of [
      remote.base,
      "127.0.0.1",
      "dee",
      "Dee",
      "Internal Server Error",
      "HTTP",
      "notes/1",
    ]) {
      expect(said).not.toContain(remoteText);
    }
    expect(await runSql(t, "select kind from fediverse_given_up")).toEqual([{ kind: "inbox" }]);
    expect(remote.tries()).toBe(tried);
  });
});
