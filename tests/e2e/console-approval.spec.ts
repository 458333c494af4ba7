import { createDatabase, type PostgresServer, startPostgres } from "../support/postgres.ts";
import { uniqueWord } from "./support/comments.ts";
import { expect, test } from "./support/fixtures.ts";
import { openDiscussion } from "./support/items.ts";
import { type OwnSite, ownerCli, postTo, signInWith, startOwnSite } from "./support/own-site.ts";

/*
 * The owner's whole moderation path in Chromium, on PostgreSQL: the command
 * line prints a sign-in link, the owner signs in, a reader's comment waits for
 * approval (MODERATION=all), the owner approves it from the console, and
 * another reader, whose page of the post is open, sees it arrive without
 * reloading (docs/console.md). On SQLite the same path
 * is tested in parts, each where its screen is already open: signing in with
 * the command line's link in console.spec.ts, and approving held comments in
 * the console while a reader's page of the post is open in
 * console-moderation.spec.ts, whose audit trail it also reads; a server and a
 * sign-in of its own checked nothing more.
 */

const post = "soap";

test("on PostgreSQL: a held comment approved in the console appears live on a reader's open page", async ({
  visitor,
}) => {
  test.slow();
  let postgres: PostgresServer | undefined;
  let own: OwnSite | undefined;
  try {
    postgres = await startPostgres();
    const env = {
      MODERATION: "all",
      DATABASE_URL: await createDatabase(postgres.url, "ewe_console"),
    };
    own = await startOwnSite("console-postgresql", { host: "localhost", env });
    const site = own.siteUrl;

    const reader = await visitor("Nadia");
    const readerComments = await openDiscussion(reader, `${site}/science/${post}`);

    // A reader writes; with every comment held, nobody else sees it yet.
    const writer = await visitor("Asha");
    const text = `Does soap still lather in hard water? ${uniqueWord()}`;
    await postTo(writer.request, own, post, { content: text, userName: "Asha" });

    const owner = await visitor();
    await signInWith(owner, ownerCli(own, "login").trim());
    await owner.getByRole("link", { name: "Comments" }).click();
    const pending = owner.getByRole("list", {
      name: "Comments awaiting approval, oldest first",
    });
    const held = pending.getByRole("article", { name: "Comment by Asha" });
    await expect(held).toContainText(text);
    await expect(readerComments.getByText(text)).toHaveCount(0);

    await held.getByRole("button", { name: "Approve the comment of Asha" }).click();
    await expect(owner.getByText("Comment approved")).toBeVisible();
    await expect(pending).toHaveCount(0);
    await expect(readerComments.getByText(text)).toBeVisible({ timeout: 15_000 });

    // The approval is in the audit trail, under the session that made it.
    expect(ownerCli(own, "audit")).toMatch(/\tcomment approve\t\d+\n/);
  } finally {
    await own?.stop();
    await postgres?.stop();
  }
});
