import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { commentsResponseSchema } from "../../contract/api.ts";
import { fragment } from "../support/built-site.ts";
import { waitFor } from "../support/wait-for.ts";
import { runSql } from "./support/sql.ts";
import { misskeyServer } from "./support/stand-in-server.ts";
import {
  backends,
  json,
  siteUrl,
  soapFeed,
  startTestApp,
  type TestApp,
} from "./support/test-app.ts";

/*
 * Correctly signed activities whose content is hostile: an account that likes
 * one item again and again under new ids, and one that claims the address of
 * another server's post or like as its own. Each counts once, as its own,
 * and a claim does not keep the other server's own post or like out; and a
 * post whose Delete arrives before it (the queue's workers take both at once,
 * or its server retries the Create), which is never shown, while another
 * account's Delete of it keeps nothing out.
 */

const soap = `${siteUrl}/fediverse/items/science/soap`;
const garuda = `${siteUrl}/fediverse/items/mythology/garuda`;

describe.each(backends)("hostile activities, correctly signed, on %s", (backend) => {
  let t: TestApp;
  let evil: Awaited<ReturnType<typeof misskeyServer>>;
  let honest: Awaited<ReturnType<typeof misskeyServer>>;
  beforeAll(async () => {
    [evil, honest] = [await misskeyServer(), await misskeyServer()];
    await evil.newKey("mal");
    await honest.newKey("vic");
    t = await startTestApp(backend, {
      // The other servers are on loopback: the tests' setting lets the site reach them.
      env: {
        FEDIVERSE_HANDLE: "arjun",
        FEDIVERSE_ALLOW_PRIVATE_ADDRESSES_IN_TESTS: "on",
        MODERATION: "off",
      },
      clientFiles: {
        "feed.json": JSON.stringify(soapFeed),
        "science/soap/index.html": "<!doctype html><title>Soap</title>",
        "mythology/garuda/index.html": `<!doctype html><title>Garuda</title><main>${fragment("mythology:garuda", "summary", "Garuda")}</main>`,
      },
    });
  });
  afterAll(async () => {
    await t?.close();
    evil?.close();
    honest?.close();
  });
  const mal = () => evil.actor("mal");
  const vic = () => honest.actor("vic");
  const queueDone = async () => (await runSql(t, "select 1 from fediverse_queue")).length === 0;
  const sent = async (server: typeof evil, name: string, activities: Record<string, unknown>[]) => {
    for (const activity of activities) {
      const answer = await t.app.inject(await server.signed(name, activity));
      expect(answer.statusCode, JSON.stringify(activity)).toBe(202);
    }
    await waitFor(queueDone, { timeoutMs: 120_000, what: "the activities handled" });
  };
  const fromFediverse = async () =>
    /(\d+) from the Fediverse/.exec(
      (await t.app.inject({ method: "GET", url: "/mythology/garuda" })).body,
    )?.[1];
  const replies = async () =>
    json(
      await t.app.inject({ method: "GET", url: "/api/items/science/soap/comments" }),
      commentsResponseSchema,
    ).comments.map((comment) => [comment.remote?.handle.split("@")[1], comment.content]);

  // The first post loads Fedify: seconds, or a minute on a machine busy with other tests.
  it("counts an account's like and boost of an item once, whatever ids it sends them under", {
    timeout: 240_000,
  }, async () => {
    const again = (type: string, times: number) =>
      Array.from({ length: times }, (_, at) => ({
        id: `${mal()}/${type}s/${at}`,
        type,
        actor: mal(),
        object: garuda,
      }));
    await sent(evil, "mal", [...again("Like", 5), ...again("Announce", 3)]);
    expect(await fromFediverse()).toBe("2");
    // Another account's like counts; the first like undone leaves one account's boost.
    await sent(honest, "vic", [
      { id: `${vic()}/likes/1`, type: "Like", actor: vic(), object: garuda },
    ]);
    expect(await fromFediverse()).toBe("3");
    const undo = { id: `${mal()}/undo/1`, type: "Undo", actor: mal(), object: again("Like", 1)[0] };
    await sent(evil, "mal", [undo]);
    expect(await fromFediverse()).toBe("2");
  });

  it("takes no post or like whose address is at another server than its signer's, and takes that server's own", {
    timeout: 240_000,
  }, async () => {
    const post = `${vic()}/notes/9`;
    const like = `${vic()}/likes/9`;
    const note = (by: string, content: string) => ({
      id: post,
      type: "Note",
      attributedTo: by,
      inReplyTo: soap,
      content: `<p>${content}</p>`,
    });
    // The Create at the other server too, so that Fedify takes the Note inside it as it is.
    await sent(evil, "mal", [
      { id: `${post}/claimed`, type: "Create", actor: mal(), object: note(mal(), "Claimed") },
      { id: like, type: "Like", actor: mal(), object: soap },
    ]);
    expect(await replies()).toEqual([]);
    // Fedify takes an activity's id once a day, whoever sent it: the claims never reached it,
    // so the post's and the like's own server sends them the same day, and they are taken.
    await sent(honest, "vic", [
      { id: `${post}/activity`, type: "Create", actor: vic(), object: note(vic(), "Mine") },
      { id: like, type: "Like", actor: vic(), object: soap },
    ]);
    expect(await replies()).toEqual([["vic", "Mine"]]);
    expect(
      await runSql(t, "select actor_id from fediverse_reactions where activity_id = ?", [like]),
    ).toEqual([{ actor_id: vic() }]);
  });

  it("never shows a post whose Delete came before it, and takes no Delete of it from another account", {
    timeout: 240_000,
  }, async () => {
    const note = (server: typeof evil, name: string, at: number, content: string) => ({
      id: `${server.actor(name)}/notes/${at}`,
      type: "Note",
      attributedTo: server.actor(name),
      inReplyTo: soap,
      content: `<p>${content}</p>`,
    });
    const create = (server: typeof evil, name: string, at: number, content: string) => ({
      id: `${server.actor(name)}/notes/${at}/activity`,
      type: "Create",
      actor: server.actor(name),
      object: note(server, name, at, content),
    });
    const deletion = (server: typeof evil, name: string, of: string) => ({
      id: `${of}/delete/${server.actor(name)}`,
      type: "Delete",
      actor: server.actor(name),
      object: { id: of, type: "Tombstone" },
    });
    const before = await replies();
    await sent(honest, "vic", [deletion(honest, "vic", note(honest, "vic", 20, "").id)]);
    await sent(evil, "mal", [deletion(evil, "mal", note(honest, "vic", 21, "").id)]);
    await sent(honest, "vic", [
      create(honest, "vic", 20, "Deleted at once"),
      create(honest, "vic", 21, "Still here"),
    ]);
    expect(await replies()).toEqual([...before, ["vic", "Still here"]]);
  });
});
