import { importJwk, signRequest } from "@fedify/fedify";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { z } from "zod";
import { commentResponseSchema } from "../../contract/api.ts";
import { fragment } from "../support/built-site.ts";
import { createDatabase, dropDatabase, freePort } from "../support/postgres.ts";
import type { LogLine } from "../support/server-process.ts";
import { waitFor } from "../support/wait-for.ts";
import { admin, adminEnv } from "./support/admin.ts";
import { linkToken, Owner } from "./support/owner.ts";
import { runSql } from "./support/sql.ts";
import { capturedLogs, json, startTestApp, type TestApp } from "./support/test-app.ts";

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

const itemPage = (
  id: string,
  title: string,
) => `<!doctype html><html><head></head><body><h1>${title}</h1>
<p>${fragment(`science:${id}`, "summary", title)}</p>
<section>${fragment(`science:${id}`, "comments")}</section>
${fragment(`science:${id}`, "mentions", title)}</body></html>`;

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
    "science/ironing/index.html": itemPage("ironing", "Why does ironing work?"),
    "science/soap/index.html": itemPage("soap", "How does soap clean?"),
  });
  const bEnv = () => ({
    SITE_URL: bUrl,
    FEDIVERSE_HANDLE: "bee",
    ALLOW_PRIVATE_ADDRESSES_IN_TESTS: "on",
    MODERATION: "all",
    ...patient,
  });
  const soap = () => item(bUrl, "soap", "How does soap clean?", "<p>Soap holds grease.</p>");
  /** A's post about B's soap piece: an h-entry that links to it, or no longer does. */
  const aFiles = (linking: boolean) => {
    const link = linking
      ? `<a class="u-in-reply-to" href="${bUrl}/science/soap">How soap cleans</a>`
      : "a piece about soap";
    const html = `<p>Soap and steam together lift the grease, as ${link} explains.</p>`;
    return {
      "feed.json": JSON.stringify({ items: [item(aUrl, "steam", "Steam and creases", html)] }),
      "science/steam/index.html": `<!doctype html><html><head><title>Steam and creases</title></head><body>
<article class="h-entry"><h1 class="p-name">Steam and creases</h1>
<a class="p-author h-card" href="${aUrl}/about">Ada Whitworth</a>
<div class="e-content">${html}</div></article></body></html>`,
    };
  };
  const aEnv = () => ({
    SITE_URL: aUrl,
    FEDIVERSE_HANDLE: "ay",
    ALLOW_PRIVATE_ADDRESSES_IN_TESTS: "on",
    ...patient,
  });
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
    // B first: A's start sends a webmention to B's page that its item links to.
    b = await startB([soap()]);
    // B has recorded its first item as sent before anyone follows it.
    await waitFor(
      async () => (await runSql(b, "select path from fediverse_published")).length === 1,
      { timeoutMs: 60_000, what: "B's first item recorded" },
    );
    a = await startTestApp("sqlite", {
      env: aEnv(),
      logger: aLogs.logger,
      clientFiles: aFiles(true),
    });
    await a.app.listen({ host: "127.0.0.1", port: aPort });
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
    const answerNote = `${bUrl}/fediverse/notes/${json(answer, commentResponseSchema).comment.id}`;
    await waitFor(
      arrivedAtA(
        (line) =>
          line.type === "Note" &&
          line.id === answerNote &&
          line.inReplyTo === second.id &&
          line.actor === bActor.id,
      ),
      { timeoutMs: 60_000, what: "B's owner's answer in A's inbox" },
    );
    const served = await fetch(answerNote, { headers: { accept: activityJson } });
    expect(JSON.stringify(await served.json())).toContain("steam, heat and pressure");

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

  it("sends a webmention from A's page to B's, shown once approved, gone when A no longer links", {
    timeout: 240_000,
  }, async () => {
    const source = `${aUrl}/science/steam`;
    const target = `${bUrl}/science/soap`;
    const soapPage = async () => (await fetch(target)).text();
    // Every page of B names its endpoint; A found it there when it started.
    const advertised = (await fetch(`${bUrl}/science/soap`)).headers.get("link") ?? "";
    expect(advertised).toBe(`<${bUrl}/webmention>; rel="webmention"`);
    const mentionOf = async () =>
      (
        await runSql(b, "select id, status, kind, author_name from webmentions where source = ?", [
          source,
        ])
      )[0];
    await waitFor(async () => (await mentionOf())?.status === "pending", {
      timeoutMs: 60_000,
      what: "A's webmention verified by B, waiting for B's owner",
    });
    expect(await mentionOf()).toMatchObject({ kind: "reply", author_name: "Ada Whitworth" });
    const [sent] = await runSql(a, "select target, outcome from webmentions_sent");
    expect(sent).toEqual({ target, outcome: "sent" });
    expect(await soapPage()).not.toContain("Ada Whitworth");

    const owner = new Owner(b);
    const login = await admin(adminEnv(b), "login");
    await owner.request(
      "POST",
      "/api/admin/sign-in",
      { token: linkToken(login.stdout) },
      {
        origin: bUrl,
      },
    );
    const id = Number((await mentionOf())?.id);
    const approved = await owner.request(
      "POST",
      `/api/admin/webmentions/${id}/approve`,
      {},
      { origin: bUrl },
    );
    expect(approved.statusCode).toBe(204);
    const shown = await soapPage();
    expect(shown).toContain("Ada Whitworth");
    expect(shown).toContain(`replied on <a href="${source}"`);
    expect(shown).toContain("Soap and steam together lift the grease");

    // A like from A's actor is counted on the item's page.
    const bActor = actorSchema.parse(
      await (
        await fetch(`${bUrl}/fediverse/actors/site`, { headers: { accept: activityJson } })
      ).json(),
    );
    const asA = await actorA();
    const liked = await asA.post(bActor.inbox, {
      id: `${asA.id}#likes/1`,
      type: "Like",
      actor: asA.id,
      object: `${bUrl}/fediverse/items/science/soap`,
    });
    expect(liked.status).toBe(202);
    await waitFor(async () => (await soapPage()).includes("1 from the Fediverse"), {
      timeoutMs: 60_000,
      what: "A's like counted on B's page",
    });

    // Bad webmentions are refused with a 4xx and change nothing.
    const before = await runSql(b, "select id, source, status from webmentions");
    const form = (fields: Record<string, string>) => new URLSearchParams(fields).toString();
    const tries: { type?: string; body: string }[] = [
      { body: "" },
      { body: form({ source }) },
      { body: form({ target }) },
      { body: form({ source: "javascript:alert(1)", target }) },
      { body: form({ source, target: "https://elsewhere.test/science/soap" }) },
      { body: form({ source, target: `${bUrl}/science/no-such-item` }) },
      { body: form({ source, target: `${bUrl}/admin` }) },
      { body: form({ source: `${bUrl}/science/ironing`, target }) },
      { body: form({ source: "https://user:secret@elsewhere.test/", target }) },
      { body: form({ source: `https://elsewhere.test/${"x".repeat(3000)}`, target }) },
      { body: `${form({ source, target })}&source=https://other.test/` },
      { body: "source=%ZZ&target=%" },
      { body: form({ source: "not a url", target: "also not" }) },
      { body: `source=${"a".repeat(9000)}` },
      { type: "application/json", body: JSON.stringify({ source, target }) },
      { type: "text/plain", body: form({ source, target }) },
      { type: "application/x-www-form-urlencoded; charset=utf-16", body: "\u0000\uffff" },
    ];
    for (const attempt of tries) {
      const response = await fetch(`${bUrl}/webmention`, {
        method: "POST",
        headers: { "content-type": attempt.type ?? "application/x-www-form-urlencoded" },
        body: attempt.body,
      });
      expect(response.status, attempt.body.slice(0, 80)).toBeGreaterThanOrEqual(400);
      expect(response.status, attempt.body.slice(0, 80)).toBeLessThan(500);
    }
    expect(await runSql(b, "select id, source, status from webmentions")).toEqual(before);

    // A is down for a moment when the mention is sent again: it stays as it was.
    await a.close();
    const resent = await fetch(`${bUrl}/webmention`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: form({ source, target }),
    });
    expect(resent.status).toBe(202);
    const checked = async () =>
      (
        await runSql(b, "select status, verified_at from webmentions where source = ?", [source])
      )[0];
    await waitFor(async () => (await checked())?.verified_at !== null, {
      timeoutMs: 60_000,
      what: "the mention checked again while its source is unreachable",
    });
    expect(await checked()).toMatchObject({ status: "published" });
    expect(await soapPage()).toContain("Ada Whitworth");

    // A's page no longer links to B's: sent again, the mention goes.
    a = await startTestApp("sqlite", { env: aEnv(), clientFiles: aFiles(false) });
    await a.app.listen({ host: "127.0.0.1", port: aPort });
    const again = await fetch(`${bUrl}/webmention`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: form({ source, target }),
    });
    expect(again.status).toBe(202);
    await waitFor(async () => (await mentionOf()) === undefined, {
      timeoutMs: 60_000,
      what: "the mention removed once its source no longer links",
    });
    expect(await soapPage()).not.toContain("Ada Whitworth");
  });
});
