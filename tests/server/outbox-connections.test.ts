import { describe, expect, it } from "vitest";
import { admin, adminEnv } from "./support/admin.ts";
import { type MailingApp, mailingApp } from "./support/mailing-app.ts";
import { editionFile } from "./support/newsletter.ts";
import { holdMail } from "./support/smtp.ts";
import { seedConfirmed } from "./support/sql.ts";
import { freshItem } from "./support/test-app.ts";

/*
 * On PostgreSQL each mail in flight holds its claim, a transaction on a connection of the
 * store's pool, until the mail server answers (docs/decisions/036-sending-in-flat-memory.md).
 * With MAIL_CONNECTIONS at its most, a slow mail server must not take the connections the
 * readers' requests need: the pool has the sends' connections besides the requests'.
 */

describe("the outbox's sends on PostgreSQL", () => {
  let app: MailingApp;
  mailingApp("postgres", { env: { MAIL_CONNECTIONS: "12" } }, (started) => {
    app = started;
  });

  it("leave the requests their connections while twelve mails wait on a slow mail server", {
    timeout: 120_000,
  }, async () => {
    const { t, smtp } = app;
    // The mail server holds every message: twelve in flight, each holding a claim.
    const { arrived, release } = holdMail(smtp);
    try {
      const readers = Array.from({ length: 30 }, (_, i) => `held${i}@example.net`);
      await seedConfirmed(t, readers);
      const file = editionFile("2026-12-held");
      expect((await admin(adminEnv(t), "newsletter", "send", file, "--yes")).code).toBe(0);
      await expect.poll(arrived, { timeout: 60_000 }).toBe(12);

      // Ten readers comment at once, each needing one of the pool's connections: answered
      // while the mails wait, where they would wait out the pool's 30 s and fail (503).
      const postId = freshItem("science");
      const started = Date.now();
      const answers = await Promise.all(
        Array.from({ length: 10 }, (_, i) =>
          t.visitor({ ip: `10.57.0.${i + 1}` }).comment(postId, `A held thought, number ${i}.`),
        ),
      );
      expect(answers.map((answer) => answer.statusCode)).toEqual(Array(10).fill(201));
      expect(Date.now() - started).toBeLessThan(20_000);
      expect(arrived()).toBe(12);
    } finally {
      release();
    }
  });
});
