import { importJwk, signRequest } from "@fedify/fedify";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { z } from "zod";
import { fragment } from "../support/built-site.ts";
import { createDatabase, dropDatabase, freePort } from "../support/postgres.ts";
import type { LogLine } from "../support/server-process.ts";
import { waitFor } from "../support/wait-for.ts";
import { admin, adminEnv } from "./support/admin.ts";
import { linkToken, Owner } from "./support/owner.ts";
import { runSql } from "./support/sql.ts";
import { capturedLogs, startTestApp, type TestApp } from "./support/test-app.ts";

/*
 * The whole story between two instances of the site on loopback, one on
 * SQLite (A) and one on PostgreSQL (B), which the tests' setting lets reach
 * each other's private addresses: A's actor finds B's by WebFinger and
 * follows it with a signed Follow; a new item on B reaches A's inbox; a
 * reply from A's actor becomes a comment under B's item once B's owner
 * approves it, and a reply to that reply joins its thread, in the HTML B
 * serves; deleting the first on A removes it on B; B's owner's answer
 * arrives back at A as a Note in reply.
 *
 * A speaks with its own actor and keys, but the posts it sends are made
 * here, signed with its key: the site sends nothing but its items and the
 * owner's replies on its own.
 */

const activityJson = "application/activity+json";
/**
 * The first Fediverse request loads Fedify, which takes seconds, and far more
 * on a machine busy with other tests: the sites wait for it.
 */
const patient = { REQUEST_TIMEOUT_SECONDS: "180", IDLE_TIMEOUT_SECONDS: "180" };
const asContext = "https://www.w3.org/ns/activitystreams";

const item = (site: string, id: string, title: string, html: string) => ({
  id: `${site}/science/${id}`,
  url: `${site}/science/${id}`,
  title,
  summary: title,
  content_html: html,
  image: `${site}/og/science/${id}.png`,
  date_published: "2026-06-01T00:00:00.000Z",
});

const itemPage = `<!doctype html><html><head></head><body><h1>Why does ironing work?</h1>
<p>${fragment("science:ironing", "summary", "Why does ironing work?")}</p>
<section>${fragment("science:ironing", "comments")}</section></body></html>`;

const actorSchema = z.object({
  id: z.string(),
  inbox: z.string(),
  publicKey: z.object({ id: z.string() }),
});

describe("two sites on the Fediverse", () => {
  let a: TestApp;
  let b: TestApp;
  let bDatabase: string;
  let aPort: number;
  let bPort: number;
  const aLogs = capturedLogs("info");
  let aUrl: string;
  let bUrl: string;

  const bFiles = (items: ReturnType<typeof item>[]) => ({
    "feed.json": JSON.stringify({ items }),
    "science/ironing/index.html": itemPage,
  });
  const bEnv = () => ({
    SITE_URL: bUrl,
    FEDIVERSE_HANDLE: "bee",
    FEDIVERSE_ALLOW_PRIVATE_ADDRESSES_IN_TESTS: "on",
    MODERATION: "all",
    ...patient,
  });
  const soap = () => item(bUrl, "soap", "How does soap clean?", "<p>Soap holds grease.</p>");
  const ironing = () =>
    item(bUrl, "ironing", "Why does ironing work?", "<p>Heat loosens the fibres.</p>");

  async function startB(items: ReturnType<typeof item>[]) {
    const started = await startTestApp("postgres", {
      databaseUrl: bDatabase,
      env: bEnv(),
      clientFiles: bFiles(items),
    });
    await started.app.listen({ host: "127.0.0.1", port: bPort });
    return started;
  }

  beforeAll(async () => {
    [aPort, bPort] = [await freePort(), await freePort()];
    aUrl = `http://127.0.0.1:${aPort}`;
    bUrl = `http://127.0.0.1:${bPort}`;
    bDatabase = await createDatabase(inject("postgresUrl"), "ewe_test", inject("postgresTemplate"));
    a = await startTestApp("sqlite", {
      env: {
        SITE_URL: aUrl,
        FEDIVERSE_HANDLE: "ay",
        FEDIVERSE_ALLOW_PRIVATE_ADDRESSES_IN_TESTS: "on",
        ...patient,
      },
      logger: aLogs.logger,
    });
    await a.app.listen({ host: "127.0.0.1", port: aPort });
    b = await startB([soap()]);
  }, 240_000);
  afterAll(async () => {
    await a?.close();
    await b?.close();
    if (bDatabase) await dropDatabase(bDatabase);
  });

  /** A's actor, and a way to post to B as it: signed with A's own key. */
  async function actorA() {
    const actor = actorSchema.parse(
      await (
        await fetch(`${aUrl}/fediverse/actors/site`, { headers: { accept: activityJson } })
      ).json(),
    );
    const [row] = await runSql(a, "select private_jwk from fediverse_keys where algorithm = ?", [
      "RSASSA-PKCS1-v1_5",
    ]);
    const key = await importJwk(JSON.parse(String(row?.private_jwk)), "private");
    return {
      id: actor.id,
      async post(inbox: string, activity: Record<string, unknown>) {
        const request = new Request(inbox, {
          method: "POST",
          headers: { "content-type": activityJson, accept: activityJson },
          body: JSON.stringify({ "@context": asContext, ...activity }),
        });
        return fetch(await signRequest(request, key, new URL(actor.publicKey.id)));
      },
    };
  }

  const arrivedAtA = (match: (line: LogLine) => boolean) => () =>
    Promise.resolve(
      aLogs.lines.some((line) => line.msg === "a Fediverse post arrived" && match(line)),
    );

  it("follows, publishes, takes replies home, removes them and answers", {
    timeout: 240_000,
  }, async () => {
    // A finds B's actor by WebFinger.
    const webfinger = z
      .object({ links: z.array(z.object({ rel: z.string(), href: z.string().optional() })) })
      .parse(
        await (
          await fetch(`${bUrl}/.well-known/webfinger?resource=acct:bee@127.0.0.1:${bPort}`)
        ).json(),
      );
    const bActorUrl = webfinger.links.find((link) => link.rel === "self")?.href ?? "";
    const bActor = actorSchema.parse(
      await (await fetch(bActorUrl, { headers: { accept: activityJson } })).json(),
    );

    // A signed Follow; B records it and accepts.
    const asA = await actorA();
    const unsigned = await fetch(bActor.inbox, {
      method: "POST",
      headers: { "content-type": activityJson },
      body: JSON.stringify({
        "@context": asContext,
        type: "Follow",
        actor: asA.id,
        object: bActor.id,
      }),
    });
    expect(unsigned.status).toBe(401);
    const follow = await asA.post(bActor.inbox, {
      id: `${asA.id}#follows/1`,
      type: "Follow",
      actor: asA.id,
      object: bActor.id,
    });
    expect(follow.status).toBe(202);
    await waitFor(
      async () => (await runSql(b, "select actor_id from fediverse_followers")).length === 1,
      { timeoutMs: 60_000, what: "B records A as a follower" },
    );

    // B's Accept has gone out before B stops.
    await waitFor(async () => (await runSql(b, "select id from fediverse_queue")).length === 0, {
      timeoutMs: 60_000,
      what: "B's Accept delivered",
    });

    // A new item on B reaches A's inbox when B starts with it.
    await b.close();
    b = await startB([soap(), ironing()]);
    const articleId = `${bUrl}/fediverse/items/science/ironing`;
    await waitFor(
      arrivedAtA((line) => line.id === articleId && line.type === "Article"),
      {
        timeoutMs: 60_000,
        what: "B's new item in A's inbox",
      },
    );
    expect(aLogs.lines.some((line) => line.id === `${bUrl}/fediverse/items/science/soap`)).toBe(
      false,
    );

    // A's reply becomes a comment on B, held until B's owner approves it.
    const note = (n: number, inReplyTo: string, content: string) => ({
      id: `${asA.id}/notes/${n}`,
      type: "Note",
      attributedTo: asA.id,
      inReplyTo,
      content,
      to: ["https://www.w3.org/ns/activitystreams#Public"],
      cc: [bActor.id],
      published: new Date().toISOString(),
    });
    const first = note(
      1,
      articleId,
      "<p>Steam does half the work: it carries heat into the weave.</p>",
    );
    const created = await asA.post(bActor.inbox, {
      id: `${first.id}/activity`,
      type: "Create",
      actor: asA.id,
      object: first,
    });
    expect(created.status).toBe(202);
    const commentOf = async (noteId: string) =>
      Number(
        (await runSql(b, "select comment_id from fediverse_replies where note_id = ?", [noteId]))[0]
          ?.comment_id ?? 0,
      );
    await waitFor(async () => (await commentOf(first.id)) > 0, {
      timeoutMs: 60_000,
      what: "the reply becomes a comment on B",
    });
    const page = async () => (await fetch(`${bUrl}/science/ironing`)).text();
    expect(await page()).not.toContain("Steam does half the work");

    const owner = new Owner(b);
    const login = await admin(adminEnv(b), "login");
    const signedIn = await owner.request(
      "POST",
      "/api/admin/sign-in",
      { token: linkToken(login.stdout) },
      { origin: bUrl },
    );
    expect(signedIn.statusCode).toBe(200);
    const asOwner = (url: string, body: Record<string, unknown> = {}) =>
      owner.request("POST", url, body, { origin: bUrl });
    expect(
      (await asOwner(`/api/admin/comments/${await commentOf(first.id)}/approve`)).statusCode,
    ).toBe(204);
    await waitFor(async () => (await page()).includes("Steam does half the work"), {
      what: "the approved reply in B's page",
    });

    // A reply to that reply joins its thread.
    const second = note(
      2,
      first.id,
      "<p>And the pressure of the iron keeps the fibres flat as they cool.</p>",
    );
    await asA.post(bActor.inbox, {
      id: `${second.id}/activity`,
      type: "Create",
      actor: asA.id,
      object: second,
    });
    await waitFor(async () => (await commentOf(second.id)) > 0, {
      timeoutMs: 60_000,
      what: "the second reply on B",
    });
    const secondId = await commentOf(second.id);
    expect((await asOwner(`/api/admin/comments/${secondId}/approve`)).statusCode).toBe(204);
    const [threaded] = await runSql(b, "select parent_id from science_comments where id = ?", [
      secondId,
    ]);
    expect(Number(threaded?.parent_id)).toBe(await commentOf(first.id));
    await waitFor(async () => (await page()).includes("keeps the fibres flat"), {
      what: "the threaded reply in B's page",
    });

    // Deleted on A, gone from B.
    await asA.post(bActor.inbox, {
      id: `${first.id}/delete`,
      type: "Delete",
      actor: asA.id,
      object: { type: "Tombstone", id: first.id },
    });
    await waitFor(async () => !(await page()).includes("Steam does half the work"), {
      timeoutMs: 60_000,
      what: "the deleted reply gone from B's page",
    });
    expect(await commentOf(first.id)).toBe(0);

    // B's owner answers the second reply; the answer arrives at A as a Note in reply to it.
    const answer = await asOwner(`/api/admin/comments/${secondId}/reply`, {
      content: "Exactly: steam, heat and pressure, in that order.",
    });
    expect(answer.statusCode).toBe(201);
    await waitFor(
      arrivedAtA(
        (line) =>
          line.type === "Note" &&
          line.inReplyTo === second.id &&
          line.actor === bActor.id &&
          String(line.content).includes("steam, heat and pressure"),
      ),
      { timeoutMs: 60_000, what: "B's owner's answer in A's inbox" },
    );

    // The owner deletes the second reply: nothing of its writer is left on B.
    expect(
      (
        await owner.request("DELETE", `/api/admin/comments/${secondId}`, undefined, {
          origin: bUrl,
        })
      ).statusCode,
    ).toBe(204);
    expect(await runSql(b, "select comment_id from fediverse_replies")).toEqual([]);
    expect(await page()).not.toContain("keeps the fibres flat");
  });
});
