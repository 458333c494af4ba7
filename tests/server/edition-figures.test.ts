import { mkdtempSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { admin, adminEnv } from "./support/admin.ts";
import { fuzzer, fuzzSeed } from "./support/fuzz.ts";
import { mailingApp } from "./support/mailing-app.ts";
import { header, type ReceivedMail, type SmtpSink } from "./support/smtp.ts";
import { runSql, seedConfirmed } from "./support/sql.ts";
import { backends, siteUrl, type TestApp } from "./support/test-app.ts";

/*
 * What an edition did (docs/mail.md, "What an edition did"): its links go
 * through signed redirects on the site's own address, each visit counted per
 * link and nothing recorded about who; a changed redirect is refused and
 * leads nowhere; `newsletter stats` gives the figures.
 */

const tracked = /http:\/\/ewe\.test(\/newsletter\/click\/\d+\/\d+\/[0-9a-f]{16})/g;

/** Every table's number of rows: a click must add none. */
async function rowCounts(t: TestApp): Promise<Record<string, number>> {
  const tables = (
    await runSql(
      t,
      t.backend === "sqlite"
        ? "select name from sqlite_master where type = 'table' and name not like 'sqlite_%'"
        : "select table_name as name from information_schema.tables where table_schema = current_schema()",
    )
  ).map((row) => String(row.name));
  const counts: Record<string, number> = {};
  for (const table of tables) {
    const [row] = await runSql(t, `select count(*) as n from ${table}`);
    counts[table] = Number(row?.n);
  }
  return counts;
}

describe.each(backends)("an edition's figures on %s", (backend) => {
  let t: TestApp;
  let smtp: SmtpSink;
  mailingApp(backend, { env: {} }, (app) => ({ t, smtp } = app));

  it("counts clicks per link through signed redirects, with no record of who, and refuses a changed one", async () => {
    const readers = ["ana", "ben", "cy"].map((name) => `${name}.figures.${backend}@example.org`);
    await seedConfirmed(t, readers);
    const dir = mkdtempSync(path.join(os.tmpdir(), "ewe-edition-"));
    writeFileSync(
      path.join(dir, "figures.md"),
      "---\nsubject: Edition figures\n---\nRead [the guide](https://example.org/guide?part=2) and [the about page](/about), or write to [me](mailto:me@example.org). The tables: <https://example.org/steam>.\n",
    );
    const sent = await admin(
      adminEnv(t),
      "newsletter",
      "send",
      path.join(dir, "figures.md"),
      "--yes",
    );
    expect(sent.code, sent.stderr).toBe(0);
    await smtp.waitFor(() => readers.every((r) => smtp.to(r).length === 1), 30_000);

    const mail = smtp.to(readers[0] as string)[0] as ReceivedMail;
    const html = String(mail.parsed.html);
    const links = [...html.matchAll(tracked)].map((m) => m[1] as string);
    expect(links).toHaveLength(3);
    expect(html).not.toContain('href="https://example.org/guide');
    expect(html).toContain('href="mailto:me@example.org"');
    // The text part's links are the same redirects, a bare address before a full stop too.
    expect([...(mail.parsed.text ?? "").matchAll(tracked)].map((m) => m[1])).toEqual(links);
    expect(mail.parsed.text).not.toContain("https://example.org/steam");
    // Every copy carries the same addresses: nothing in them names the reader.
    expect(
      [...String(smtp.to(readers[1] as string)[0]?.parsed.html).matchAll(tracked)].map((m) => m[1]),
    ).toEqual(links);
    const [guide = "", about = ""] = links;

    const before = await rowCounts(t);
    const follow = (url: string, userAgent = "Mozilla/5.0 (X11; Linux x86_64) Firefox/140.0") =>
      t.app.inject({ method: "GET", url, headers: { "user-agent": userAgent } });
    for (const _ of [1, 2, 3]) {
      const response = await follow(guide);
      expect(response.statusCode).toBe(302);
      expect(response.headers.location).toBe("https://example.org/guide?part=2");
    }
    // A link to the site's own page goes on marked as the newsletter's, for the Readers screen;
    // one elsewhere (above) as it was written.
    expect((await follow(about)).headers.location).toBe(
      `${siteUrl}/about?utm_source=newsletter&utm_medium=email&utm_campaign=figures`,
    );
    // A link scanner is sent on but not counted.
    const scanner = await follow(guide, "Googlebot/2.1 (+http://www.google.com/bot.html)");
    expect(scanner.statusCode).toBe(302);
    expect(await rowCounts(t)).toEqual(before);

    // Changed addresses lead nowhere.
    const [, edition, position, signature = ""] = guide.split("/").slice(2);
    const changed = [
      `/newsletter/click/${edition}/${position}/${signature.replace(/.$/, (c) => (c === "0" ? "1" : "0"))}`,
      `/newsletter/click/${edition}/${Number(position) + 1}/${signature}`,
      `/newsletter/click/${Number(edition) + 1}/${position}/${signature}`,
      `/newsletter/click/${edition}/${position}/${signature}?to=https://evil.example`,
      // Another spelling of the same numbers is another link.
      `/newsletter/click/${edition}/0${position}/${signature}`,
      `/newsletter/click/0${edition}/${position}/${signature}`,
      "/newsletter/click/x/y/z",
      `/newsletter/click/${edition}/${position}`,
      "/newsletter/click/99999999999999999999/0/0000000000000000",
    ];
    for (const url of changed.slice(0, 3)) {
      const response = await follow(url);
      expect(response.statusCode, url).toBe(404);
      expect(response.headers.location, url).toBeUndefined();
      expect(response.body).toContain("This link is not known");
    }
    // Its query is not read: the target comes from the database alone.
    expect((await follow(changed[3] as string)).headers.location).toBe(
      "https://example.org/guide?part=2",
    );
    for (const url of changed.slice(4)) {
      const response = await follow(url);
      expect(response.statusCode, url).toBeGreaterThanOrEqual(400);
      expect(response.statusCode, url).toBeLessThan(500);
      expect(response.headers.location, url).toBeUndefined();
    }
    // Fuzzed: a link mangled anywhere leads nowhere, with a 4xx, never a 500.
    const seed = fuzzSeed();
    const fuzz = fuzzer(seed);
    for (let i = 0; i < Number(process.env.FUZZ_ROUNDS ?? 40) * 4; i += 1) {
      const parts = [edition, position, signature].map(String);
      const at = Math.floor(fuzz.random() * parts.length);
      parts[at] = encodeURIComponent(
        fuzz
          .mangle(fuzz.random() < 0.5 ? (parts[at] ?? "") : String(fuzz.anyValue()))
          .toWellFormed(),
      );
      const url = `/newsletter/click/${parts.join("/")}`;
      if (url === guide) continue;
      const response = await follow(url);
      expect(response.statusCode, `seed ${seed}: ${url}`).toBeGreaterThanOrEqual(400);
      expect(response.statusCode, `seed ${seed}: ${url}`).toBeLessThan(500);
      expect(response.headers.location, `seed ${seed}: ${url}`).toBeUndefined();
    }

    // One reader leaves through the mail's one-click header.
    const oneClick =
      /<([^>]+)>/.exec(
        header(smtp.to(readers[2] as string)[0] as ReceivedMail, "List-Unsubscribe"),
      )?.[1] ?? "";
    const left = await t.app.inject({
      method: "POST",
      url: oneClick.replace(siteUrl, ""),
      headers: { "content-type": "application/x-www-form-urlencoded" },
      payload: "List-Unsubscribe=One-Click",
    });
    expect(left.statusCode).toBeLessThan(300);

    const stats = await admin(adminEnv(t), "newsletter", "stats", "figures", "--json");
    expect(stats.code, stats.stderr).toBe(0);
    expect(JSON.parse(stats.stdout)).toEqual([
      {
        slug: "figures",
        subject: "Edition figures",
        sent: 3,
        accepted: 3,
        bounced: 0,
        complaints: 0,
        unsubscribes: 1,
        links: [
          { url: "https://example.org/guide?part=2", clicks: 4 },
          { url: `${siteUrl}/about`, clicks: 1 },
          { url: "https://example.org/steam", clicks: 0 },
        ],
      },
    ]);
    const table = await admin(adminEnv(t), "newsletter", "stats");
    expect(table.stdout).toContain("Clicks in figures:");
    // Each figure under the end of its heading, as numbers align.
    const [headings = "", row = ""] = table.stdout.split("\n");
    expect(row[headings.indexOf("sent") + "sent".length - 1], row).toBe("3");
    expect((await admin(adminEnv(t), "newsletter", "stats", "nothing-sent")).code).toBe(3);
    // Sending, then every table counted twice: minutes on a busy machine.
  }, 240_000);
});
