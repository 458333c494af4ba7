import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { subscribersResponseSchema } from "../../contract/console.ts";
import { shownAddress } from "../../contract/console-endpoints.ts";
import { suppressionsResponseSchema } from "../../contract/list-pages.ts";
import { migrateToLatest, type Store } from "../../server/db/store.ts";
import { heldAddress, suppressionKey } from "../../server/lib/mailbox.ts";
import { createEditionsRepository } from "../../server/newsletter/editions-repository.ts";
import { createSuppressions } from "../../server/outbox/suppressions.ts";
import { admin, adminEnv } from "./support/admin.ts";
import { requestSubscription } from "./support/newsletter.ts";
import { Owner } from "./support/owner.ts";
import { scratchStore } from "./support/scratch-store.ts";
import { runSql, seedConfirmed, seedSuppressed } from "./support/sql.ts";
import { backends, json, startTestApp, type TestApp } from "./support/test-app.ts";

/*
 * A suppression holds without keeping who it was (docs/mail.md, "Bounces and
 * complaints"; docs/decisions/059-suppressions-without-addresses.md): the
 * suppressed addresses and the soft bounces keep a keyed digest of the
 * mailbox, the domain, and the receiving server's words with the address cut
 * out; the migration converts the rows an older version kept in plain text.
 */

const key = suppressionKey("a secret of the site, 32 characters or more");

/** Every value of every row of the two tables, as one text. */
const dumped = async (store: Store) =>
  JSON.stringify([
    (await sql`select * from suppressions`.execute(store.db)).rows,
    (await sql`select * from soft_bounces`.execute(store.db)).rows,
  ]);

describe.each(backends)("suppressions that keep no address, on %s", (backend) => {
  it("suppress and count soft bounces by a digest, the server's words without the address, for every spelling of the mailbox", async () => {
    const scratch = await scratchStore(backend);
    try {
      const { store } = scratch;
      await migrateToLatest(store);
      const suppressions = createSuppressions(store, key);
      await suppressions.suppress("Kept.Out@Example.org", "hard_bounce", {
        source: "smtp",
        detail:
          "550 5.1.1 <Kept.Out+news@Example.org>: Recipient address rejected: user kept.out unknown (mailbox kept.out@example.org)",
      });
      for (const ref of ["a", "b"]) {
        expect(
          await suppressions.softBounce("full.box@example.net", {
            ref,
            source: "postmark",
            detail: "452 4.2.2 full.box: mailbox full",
          }),
        ).toBe("counted");
      }
      const kept = await dumped(store);
      for (const word of ["kept.out", "Kept.Out", "full.box"]) expect(kept).not.toContain(word);
      expect(kept).toContain(key("kept.out@example.org"));
      const [row] = (await suppressions.list({ limit: 10 })).entries;
      expect(row).toMatchObject({
        email: null,
        domain: "example.org",
        detail:
          "550 5.1.1 <[address]>: Recipient address rejected: user [name] unknown (mailbox [address])",
      });
      // The mailbox is suppressed however it is spelt: a letter case, a tag.
      for (const spelling of ["kept.out@example.org", "KEPT.OUT+other@example.org"]) {
        expect(await suppressions.isSuppressed(spelling), spelling).toBe(true);
      }
      expect(await suppressions.isSuppressed("keptout@example.org")).toBe(false);
      // A tagged spelling that bounced is that spelling alone: a server that takes no tags
      // refuses it while the mailbox reads on, and anyone may type it into a form.
      await suppressions.suppress("Tagged.One+x@Example.org", "hard_bounce", { source: "smtp" });
      for (const [spelling, suppressed] of [
        ["TAGGED.ONE+X@example.org", true],
        ["tagged.one@example.org", false],
        ["tagged.one+y@example.org", false],
      ] as const) {
        expect(await suppressions.isSuppressed(spelling), spelling).toBe(suppressed);
      }
      for (const ref of ["d", "e", "f"])
        await suppressions.softBounce("Busy.One+x@example.net", { ref, source: "smtp" });
      expect(await suppressions.isSuppressed("busy.one+x@example.net")).toBe(true);
      expect(await suppressions.isSuppressed("busy.one@example.net")).toBe(false);
      // A complaint comes from the mailbox's reader, under whichever spelling: the mailbox.
      await suppressions.suppress("Angry.One+x@example.org", "complaint", { source: "ses" });
      expect(await suppressions.isSuppressed("angry.one@example.org")).toBe(true);
      // Lifted typed as it bounced.
      expect(await suppressions.lift({ email: "tagged.one+x@example.org" })).toBe(true);
      expect(await suppressions.isSuppressed("tagged.one+x@example.org")).toBe(false);
      // The third soft bounce suppresses its address, still by its digest alone.
      expect(
        await suppressions.softBounce("Full.Box@example.net", { ref: "c", source: "postmark" }),
      ).toBe("suppressed");
      expect(await suppressions.isSuppressed("full.box@example.net")).toBe(true);
      expect(await dumped(store)).not.toMatch(/full\.box/i);
    } finally {
      await scratch.drop();
    }
  });

  it("skips every spelling of a suppressed mailbox among an edition's recipients", async () => {
    const scratch = await scratchStore(backend);
    try {
      const { store } = scratch;
      await migrateToLatest(store);
      const suppressions = createSuppressions(store, key);
      await suppressions.suppress("kept.out@example.org", "complaint", { source: "postmark" });
      const at = new Date().toISOString();
      await store.db
        .insertInto("subscribers")
        .values(
          ["kept.out@example.org", "Kept.Out+news@example.org", "other@example.org"].map(
            (email, i) => ({
              ...heldAddress(key, email),
              unsubscribe_token: `token-${i}`,
              created_at: at,
              status: "confirmed" as const,
            }),
          ),
        )
        .execute();
      const editions = createEditionsRepository(store, suppressions.fillDigests);
      const saved = await editions.saveEdition({
        slug: "spellings",
        subject: "Spellings",
        html: "<p>Hi</p>",
        text: "Hi",
        links: [],
        markup: [],
      });
      if (typeof saved === "string") throw new Error(saved);
      expect(await editions.queueEdition(saved.id)).toBe(1);
      expect(await sql`select email from outbox`.execute(store.db)).toMatchObject({
        rows: [{ email: "other@example.org" }],
      });
    } finally {
      await scratch.drop();
    }
  });

  it("keeps a receiving server's words as one line of plain text: no control, bidi or invisible character", async () => {
    // Anyone's mail server writes them (its refusal at send time, the report it sends back),
    // and the console and the command line show them to the owner.
    const scratch = await scratchStore(backend);
    try {
      const { store } = scratch;
      await migrateToLatest(store);
      const suppressions = createSuppressions(store, key);
      await suppressions.suppress("far.away@example.org", "hard_bounce", {
        source: "smtp",
        detail:
          "550-5.1.1 No such user.\r\n550 5.1.1 \u202Egnp.erawlam\u202C \u001b[2J\u0000call\u200B us\u2028now",
      });
      const [row] = (await suppressions.list({ limit: 10 })).entries;
      expect(row?.detail).toBe("550-5.1.1 No such user. 550 5.1.1 gnp.erawlam [2Jcall us now");
    } finally {
      await scratch.drop();
    }
  });

  it("converts the rows an older version kept in plain text, and refuses to without the site's key", async () => {
    const scratch = await scratchStore(backend);
    try {
      const { store } = scratch;
      await scratch.migrateTo("047_rejections_forgotten");
      const at = "2026-11-30T09:15:00.000Z";
      for (const [email, reason, detail] of [
        ["gone@example.org", "hard_bounce", "550 5.1.1 <gone@example.org>: no such user gone"],
        // Two spellings of one mailbox: the complaint is the row that stays.
        ["angry+news@example.com", "hard_bounce", null],
        ["angry@example.com", "complaint", null],
      ] as const) {
        await sql`insert into suppressions (email, reason, source, detail, created_at)
          values (${email}, ${reason}, 'smtp', ${detail}, ${at})`.execute(store.db);
      }
      await sql`insert into soft_bounces (email, ref, created_at)
        values ('busy@example.net', 'outbox 7', ${at})`.execute(store.db);
      const before = await dumped(store);

      await expect(migrateToLatest(store)).rejects.toThrow(/set COOKIE_SECRET/);
      expect(await dumped(store)).toBe(before);

      await migrateToLatest(store, key);
      const kept = await dumped(store);
      for (const word of ["gone", "angry", "busy"]) expect(kept).not.toContain(word);
      const suppressions = createSuppressions(store, key);
      expect(
        (await suppressions.list({ limit: 10 })).entries.map(({ id, domain, reason, detail }) => ({
          id,
          domain,
          reason,
          detail,
        })),
      ).toEqual(
        [
          {
            id: key("angry@example.com"),
            domain: "example.com",
            reason: "complaint",
            detail: null,
          },
          {
            id: key("gone@example.org"),
            domain: "example.org",
            reason: "hard_bounce",
            detail: "550 5.1.1 <[address]>: no such user [name]",
          },
        ].sort((a, b) => (a.id < b.id ? 1 : -1)),
      );
      // The soft bounce counts on towards a suppression.
      await suppressions.softBounce("busy@example.net", { ref: "outbox 8", source: "smtp" });
      expect(
        await suppressions.softBounce("busy@example.net", { ref: "outbox 9", source: "smtp" }),
      ).toBe("suppressed");
    } finally {
      await scratch.drop();
    }
  });
});

describe.each(backends)("a removed subscriber's complaint, on %s", (backend) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(backend);
  });
  afterAll(async () => {
    await t?.close();
  });

  /** The console's list of suppressions as the owner sees it, searched for `email` if given. */
  const consoleList = async (me: Owner, search: { email?: string } = {}) =>
    json(
      await me.post("/api/admin/suppressions/search", search),
      suppressionsResponseSchema,
    ).suppressions.map(shownAddress);

  it("keeps holding: nothing is mailed to the address until the owner lifts it by name or by its row", async () => {
    const email = `complained.${backend}@example.org`;
    await seedConfirmed(t, [email]);
    await seedSuppressed(t, [{ email, reason: "complaint", source: "ses" }]);
    const env = adminEnv(t);
    expect((await admin(env, "subscribers", "remove", email)).code).toBe(0);

    // The list keeps its digest, and shows what the site can: the domain.
    const listed = JSON.parse((await admin(env, "suppressions", "list", "--json")).stdout);
    expect(listed).toEqual([
      expect.objectContaining({ id: t.addressKey(email), email: null, domain: "example.org" }),
    ]);
    expect((await admin(env, "suppressions", "list")).stdout).toContain(
      "an address at example.org (no longer kept)",
    );

    // Subscribing again, as anyone could type it: the confirmation is cancelled, never sent.
    expect((await requestSubscription(t, email)).statusCode).toBe(202);
    await expect
      .poll(() => runSql(t, "select status, last_error from outbox where email = ?", [email]))
      .toEqual([{ status: "cancelled", last_error: "the address is suppressed" }]);

    // Lifted by its row's id; again, nothing is there to lift.
    const id = t.addressKey(email);
    const lifted = await admin(env, "suppressions", "lift", "--id", id);
    expect(lifted.code, lifted.stderr).toBe(0);
    expect(lifted.stdout).toBe(
      `Lifted the suppression of the address of ${id}: mail may go to it again.\n`,
    );
    const again = await admin(env, "suppressions", "lift", "--id", id);
    expect(again.code).toBe(3);
    expect(again.stderr).toContain(`No suppression has the id ${id}.`);
    // By name, in any spelling of the mailbox.
    await seedSuppressed(t, [{ email, reason: "complaint", source: "ses" }]);
    const byName = await admin(
      env,
      "suppressions",
      "lift",
      email.replace("@", "+x@").toUpperCase(),
    );
    expect(byName.code, byName.stderr).toBe(0);
    expect(await runSql(t, "select 1 from suppressions")).toEqual([]);
    const both = await admin(env, "suppressions", "lift", email, "--id", id);
    expect(both.code).toBe(2);
    // A mistyped address is named as the reason, not taken for a missing one.
    const typo = await admin(env, "suppressions", "lift", "a@b.c");
    expect(typo.code).toBe(2);
    expect(typo.stderr).toContain('"a@b.c" is not an email address the site would mail.');
  });

  it("names an internationalised domain as the owner types it, and lifts it typed either way", async () => {
    const gone = `leser.${backend}@xn--bcher-kva.example`;
    const held = `held.${backend}@xn--bcher-kva.example`;
    await seedConfirmed(t, [held]);
    await seedSuppressed(t, [
      { email: gone, reason: "complaint" },
      { email: held, reason: "hard_bounce" },
    ]);
    const env = adminEnv(t);
    const shown = (await admin(env, "suppressions", "list")).stdout;
    expect(shown).toContain("an address at bücher.example (no longer kept)");
    expect(shown).toContain(`held.${backend}@bücher.example`);
    expect(shown).not.toContain("xn--");
    const me = new Owner(t);
    expect((await me.signIn()).statusCode).toBe(200);
    expect((await consoleList(me)).toSorted()).toEqual([
      "an address at bücher.example (no longer kept)",
      `held.${backend}@bücher.example`,
    ]);

    // Lifted by the name the list shows, and by its punycode spelling.
    const unicode = gone.replace("xn--bcher-kva", "bücher");
    expect((await admin(env, "suppressions", "lift", unicode)).code).toBe(0);
    expect((await me.post("/api/admin/suppressions/lift", { email: held })).statusCode).toBe(204);
    expect(await runSql(t, "select 1 from suppressions")).toEqual([]);
    await seedSuppressed(t, [
      { email: gone, reason: "complaint" },
      { email: held, reason: "hard_bounce" },
    ]);
    expect((await admin(env, "suppressions", "lift", gone)).code).toBe(0);
    const typed = held.replace("xn--bcher-kva", "bücher");
    expect((await me.post("/api/admin/suppressions/lift", { email: typed })).statusCode).toBe(204);
    expect(await runSql(t, "select 1 from suppressions")).toEqual([]);
  });

  it("names a look-alike domain in punycode, as browsers do, on the command line and in the console", async () => {
    // "gmаil.com" with a Cyrillic "а" (xn--gmil-63d.com); "аррӏе.com", Cyrillic letters that look Latin.
    const mixed = `leser.${backend}@xn--gmil-63d.com`;
    const alike = `held.${backend}@xn--80ak6aa92e.com`;
    const fine = `fine.${backend}@xn--e1afmkfd.xn--p1ai`;
    await seedConfirmed(t, [alike, fine]);
    await seedSuppressed(t, [
      { email: mixed, reason: "complaint" },
      { email: alike, reason: "hard_bounce" },
      { email: fine, reason: "hard_bounce" },
    ]);
    const expected = [
      "an address at xn--gmil-63d.com (no longer kept)",
      alike,
      `fine.${backend}@пример.рф`,
    ];
    const shown = (await admin(adminEnv(t), "suppressions", "list")).stdout;
    for (const line of expected) expect(shown).toContain(line);
    expect(shown).not.toContain("gmаil");
    const me = new Owner(t);
    expect((await me.signIn()).statusCode).toBe(200);
    expect((await consoleList(me)).toSorted()).toEqual(expected.toSorted());
    // Typed into the search in Unicode, the look-alike is named in punycode too.
    const typed = mixed.replace("xn--gmil-63d", "gmаil");
    expect(await consoleList(me, { email: typed })).toEqual([mixed]);
  });

  it("marks a suppressed subscriber in the Subscribers list, and no other", async () => {
    const [gone, kept] = [`gone.${backend}@marked.example`, `kept.${backend}@marked.example`];
    await seedConfirmed(t, [gone, kept]);
    await seedSuppressed(t, [{ email: gone, reason: "hard_bounce" }]);
    const me = new Owner(t);
    expect((await me.signIn()).statusCode).toBe(200);
    const { subscribers } = json(
      await me.post("/api/admin/subscribers/search", { q: `.${backend}@marked.example` }),
      subscribersResponseSchema,
    );
    expect(subscribers.map(({ email, suppressed }) => [email, suppressed]).toSorted()).toEqual([
      [gone, true],
      [kept, false],
    ]);
  });

  it("spells each address in the Subscribers list as in the suppressions list, and removes it so spelt", async () => {
    const unicode = `same.${backend}@xn--bcher-kva.example`;
    const alike = `same.${backend}@xn--gmil-63d.com`;
    await seedConfirmed(t, [unicode, alike]);
    await seedSuppressed(t, [
      { email: unicode, reason: "hard_bounce" },
      { email: alike, reason: "hard_bounce" },
    ]);
    const me = new Owner(t);
    expect((await me.signIn()).statusCode).toBe(200);
    const suppressed = (await consoleList(me)).filter((email) => email.startsWith("same."));
    expect(suppressed.toSorted()).toEqual([`same.${backend}@bücher.example`, alike]);
    const subscribers = async (q: string) =>
      json(await me.post("/api/admin/subscribers/search", { q }), subscribersResponseSchema)
        .subscribers.map((row) => row.email)
        .toSorted();
    expect(await subscribers(`same.${backend}`)).toEqual(suppressed.toSorted());
    // Searched for as shown.
    expect(await subscribers("bücher")).toContain(`same.${backend}@bücher.example`);
    expect(await subscribers(`same.${backend}@bücher.example`)).toEqual([
      `same.${backend}@bücher.example`,
    ]);
    const listed = (await admin(adminEnv(t), "subscribers", "list")).stdout;
    for (const email of suppressed) expect(listed).toContain(`${email}\t`);
    // Removed by the spelling the list shows.
    const removed = await me.post("/api/admin/subscribers/remove", {
      email: `same.${backend}@bücher.example`,
    });
    expect(removed.statusCode).toBe(204);
    expect(await runSql(t, "select email from subscribers where email = ?", [unicode])).toEqual([]);
  });
});
