import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { commentResponseSchema, commentsResponseSchema } from "../../contract/api.ts";
import { followersResponseSchema } from "../../contract/fediverse.ts";
import { createDatabase, dropDatabase } from "../support/postgres.ts";
import { waitFor } from "../support/wait-for.ts";
import { Owner } from "./support/owner.ts";
import { runSql } from "./support/sql.ts";
import { misskeyServer } from "./support/stand-in-server.ts";
import { backends, json, siteUrl, startTestApp, type TestApp } from "./support/test-app.ts";

/*
 * An item taken off the site takes the owner's answers under it off the
 * Fediverse. Ivy follows the site from a stand-in server, Dee replies there to
 * the soap post and the owner answers her. The site starts again without the
 * soap post: besides the Article's Delete, Ivy's server and Dee's get a Delete
 * of the answer's Note naming nobody, and its address answers 410 Gone. The
 * next start, the wifi post taken off too, sends that Delete no more.
 */

const activityJson = "application/activity+json";
const actorUrl = `${siteUrl}/fediverse/actors/site`;
const article = (slug: string) => `${siteUrl}/fediverse/items/science/${slug}`;

/** The built site's feed with these science posts. */
const feedOf = (...slugs: string[]) => ({
  "feed.json": JSON.stringify({
    items: slugs.map((slug) => ({
      id: `${siteUrl}/science/${slug}`,
      url: `${siteUrl}/science/${slug}`,
      title: `About ${slug}`,
      content_html: `<p>About ${slug}.</p>`,
      date_published: "2026-05-01T00:00:00.000Z",
    })),
  }),
});

describe.each(backends)(
  "the owner's answers under an item taken off the site, on %s",
  (backend) => {
    let site: TestApp | undefined;
    let remote: Awaited<ReturnType<typeof misskeyServer>>;
    let databaseUrl: string | undefined;
    const dataDir = mkdtempSync(path.join(os.tmpdir(), "ewe-removed-item-"));

    /** The site, started again on the same database, showing `clientFiles`; listening, it publishes. */
    async function start(clientFiles: Record<string, string>, listen = true) {
      await site?.close();
      site = await startTestApp(backend, {
        dataDir,
        ...(databaseUrl ? { databaseUrl } : {}),
        clientFiles,
        env: { FEDIVERSE_HANDLE: "arjun", ALLOW_PRIVATE_ADDRESSES_IN_TESTS: "on" },
      });
      if (listen) await site.app.listen({ host: "127.0.0.1", port: 0 });
      return site;
    }

    beforeAll(async () => {
      remote = await misskeyServer();
      if (backend === "postgres") {
        databaseUrl = await createDatabase(
          inject("postgresUrl"),
          "ewe_test",
          inject("postgresTemplate"),
        );
      }
    });
    afterAll(async () => {
      await site?.close();
      remote?.close();
      if (databaseUrl) await dropDatabase(databaseUrl);
      rmSync(dataDir, { recursive: true, force: true });
    });

    /** The activities of `type` about `id` delivered to the stand-in, with the inbox of each. */
    const deliveredAbout = (type: string, id: string) =>
      remote.delivered.filter(
        ({ activity }) =>
          activity.type === type && (activity.object as { id?: string } | undefined)?.id === id,
      );
    const arrived = (type: string, id: string, inboxes: number) =>
      waitFor(async () => deliveredAbout(type, id).length === inboxes, {
        timeoutMs: 120_000,
        what: `${type} of ${id} at ${inboxes} inbox(es)`,
      });

    // The first request loads Fedify: seconds, or a minute on a machine busy with other tests.
    it("sends a Delete of each to its writer's server and followers' servers, once, and answers 410 for it", {
      timeout: 300_000,
    }, async () => {
      const t = await start(feedOf("soap", "wifi"));
      const owner = new Owner(t);
      expect((await owner.signIn()).statusCode).toBe(200);
      const [ivy, dee] = [remote.actor("ivy"), remote.actor("dee")];
      await remote.newKey("ivy");
      await remote.newKey("dee");
      const follow = { id: `${ivy}/follows/1`, type: "Follow", actor: ivy, object: actorUrl };
      expect((await t.app.inject(await remote.signed("ivy", follow))).statusCode).toBe(202);
      await waitFor(
        async () =>
          json(await owner.get("/api/admin/followers"), followersResponseSchema).followers.some(
            (one) => one.actorId === ivy,
          ),
        { timeoutMs: 120_000, what: "Ivy following" },
      );
      const post = `${dee}/statuses/1`;
      const reply = {
        id: `${post}/activity`,
        type: "Create",
        actor: dee,
        object: {
          id: post,
          type: "Note",
          attributedTo: dee,
          inReplyTo: article("soap"),
          content: "<p>Does soap work in cold water?</p>",
          to: ["https://www.w3.org/ns/activitystreams#Public"],
        },
      };
      expect((await t.app.inject(await remote.signed("dee", reply))).statusCode).toBe(202);
      const question = async () =>
        json(
          await t.app.inject({ url: "/api/items/science/soap/comments" }),
          commentsResponseSchema,
        ).comments.find((comment) => comment.content === "Does soap work in cold water?");
      await waitFor(async () => (await question()) !== undefined, {
        timeoutMs: 120_000,
        what: "Dee's question under the soap post",
      });
      const answered = await owner.post(`/api/admin/comments/${(await question())?.id}/reply`, {
        content: "It does, more slowly.",
      });
      expect(answered.statusCode).toBe(201);
      const note = `${siteUrl}/fediverse/notes/${json(answered, commentResponseSchema).comment.id}`;
      await arrived("Create", note, 1);
      const asNote = (app: TestApp) =>
        app.app.inject({ url: note, headers: { accept: activityJson } });
      expect((await asNote(t)).statusCode).toBe(200);

      // The soap post taken off the site: the Article goes, and the answer under it with it.
      const without = await start(feedOf("wifi"), false);
      // Before the start's comparison has sent anything, it is no Note already: its page is gone.
      expect((await asNote(without)).statusCode).toBe(404);
      await without.app.listen({ host: "127.0.0.1", port: 0 });
      await arrived("Delete", article("soap"), 1);
      await arrived("Delete", note, 2);
      expect(
        deliveredAbout("Delete", note)
          .map(({ inbox }) => inbox)
          .sort(),
      ).toEqual(["/users/dee/inbox", "/users/ivy/inbox"]);
      for (const { activity } of deliveredAbout("Delete", note)) {
        expect(activity).toMatchObject({
          actor: actorUrl,
          object: { type: "Tombstone", id: note },
        });
        // Public, as the Note was: it names nobody, nor says what it answered.
        for (const text of ["/users/", "/statuses/", "cold water", "more slowly"]) {
          expect(JSON.stringify(activity)).not.toContain(text);
        }
      }
      const gone = await asNote(without);
      expect(gone.statusCode).toBe(410);
      expect(gone.json()).toMatchObject({ id: note, type: "Tombstone", formerType: "Note" });
      // Its record keeps its address and when it went, nothing of whom it answered.
      const notePath = new URL(note).pathname.replace("/fediverse", "");
      const [record] = await runSql(
        without,
        "select digest, deleted_at from fediverse_published where path = ?",
        [notePath],
      );
      expect(record).toMatchObject({ digest: "", deleted_at: expect.anything() });

      // Started again, the wifi post taken off too: its Delete goes, the answer's no second time.
      const again = await start(feedOf());
      await arrived("Delete", article("wifi"), 1);
      await waitFor(
        async () => (await runSql(again, "select 1 from fediverse_queue")).length === 0,
        {
          timeoutMs: 120_000,
          what: "the Fediverse queue empty",
        },
      );
      expect(deliveredAbout("Delete", note)).toHaveLength(2);
      expect((await asNote(again)).statusCode).toBe(410);
    });
  },
);
