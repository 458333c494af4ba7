import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fakeSciencePage } from "../support/built-site.ts";
import { admin, adminEnv } from "./support/admin.ts";
import { runSql } from "./support/sql.ts";
import { backends, json, startTestApp, type TestApp } from "./support/test-app.ts";

/*
 * Comments from Disqus and WordPress (docs/product.md, "Moving in and out"):
 * checked whole first, written once however often the import runs, shown on
 * open pages without a restart, escaped like any comment.
 */

const fixture = (name: string) => path.resolve(import.meta.dirname, "../fixtures/import", name);
/** `admin import --from disqus` into `t`, with the fixtures' map of old pages to posts. */
const importDisqus = (t: TestApp, ...args: string[]) =>
  admin(adminEnv(t), "import", "--from", "disqus", "--map", fixture("disqus-map.json"), ...args);

type Listed = {
  id: number;
  userName: string;
  content: string;
  html: string;
  parentId: number | null;
};
const commentsOf = async (t: TestApp, postId: string) =>
  json(await t.visitor().get(`/api/items/science/${postId}/comments`)) as {
    comments: Listed[];
    total: number;
  };

describe.each(backends)("importing comments on %s", (backend) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(backend, { clientFiles: { "science/index.html": fakeSciencePage } });
  });
  afterAll(() => t?.close());

  it("brings a Disqus export's published posts and replies, lists what it skipped, and shows them on the open site", async () => {
    // Read once before, so the site holds the empty answer in memory.
    expect((await commentsOf(t, "soap")).total).toBe(0);
    const dry = await importDisqus(t, "--dry-run", fixture("disqus.xml"));
    expect(dry.code).toBe(0);
    expect(dry.stdout).toContain("comments: 4 to add");
    expect(await runSql(t, "select id from science_comments")).toEqual([]);

    const run = await importDisqus(t, fixture("disqus.xml"));
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("comments: 4 added");
    expect(run.stdout).toContain("Skipped 3:");
    expect(run.stdout).toMatch(/dsq:id "9004"\): marked as spam in Disqus/);
    expect(run.stdout).toMatch(/dsq:id "9005"\): deleted in Disqus/);
    expect(run.stdout).toMatch(
      /dsq:id "9007"\): its page "https:\/\/old-blog\.example\/retired-page" matches no science post/,
    );

    await expect.poll(async () => (await commentsOf(t, "soap")).total, { timeout: 15_000 }).toBe(3);
    const { comments } = await commentsOf(t, "soap");
    const [question, answer, followUp] = comments;
    expect(question).toMatchObject({ userName: "Lathering Lakshmi", parentId: null });
    expect(question?.content).toContain("Does soap work the same in hard water?");
    expect(answer).toMatchObject({ userName: "Chemistry Chitra", parentId: question?.id });
    // A reply to a reply joins the thread of the comment that starts it.
    expect(followUp?.parentId).toBe(question?.id);
    // Script in names and text stays text.
    expect(followUp?.userName).toBe("<img src=x onerror=alert(1)>");
    expect(followUp?.html).not.toContain("<script");
    expect(followUp?.html).toContain("&lt;script&gt;");
    expect((await commentsOf(t, "wifi")).total).toBe(1);
    // Nobody's browser owns them, and no address came in.
    const rows = await runSql(t, "select visitor_id from science_comments");
    expect(rows.every((r) => String(r.visitor_id).startsWith("imported:disqus:"))).toBe(true);
    expect(JSON.stringify(await runSql(t, "select * from science_comments"))).not.toContain(
      "not-imported@example.org",
    );

    const page = (await t.app.inject({ method: "GET", url: "/science" })).body;
    expect(page).toContain("Lathering Lakshmi");
    expect(page).not.toContain("<img src=x");
    const jsonLd = JSON.parse(
      /<script type="application\/ld\+json">(.*?)<\/script>/s.exec(page)?.[1] ?? "{}",
    );
    const soap = jsonLd["@graph"].find((node: { headline?: string }) =>
      node.headline?.startsWith("How does soap clean"),
    );
    expect(soap.commentCount).toBe(3);
  });

  it("changes nothing when the same export is imported again", async () => {
    const before = await runSql(t, "select count(*) as n from science_comments");
    const run = await importDisqus(t, fixture("disqus.xml"));
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("comments: 0 added, 4 already there");
    expect(await runSql(t, "select count(*) as n from science_comments")).toEqual(before);
  });

  it("stores an imported comment's line breaks as \"\\n\" alone, as a form's are", async () => {
    // A <pre> keeps a carriage return ("&#13;" in the post's HTML) through the text conversion.
    const returns = path.join(mkdtempSync(path.join(os.tmpdir(), "ewe-import-")), "returns.xml");
    writeFileSync(
      returns,
      readFileSync(fixture("disqus.xml"), "utf8")
        .replace('<post dsq:id="9001">', '<post dsq:id="9101">')
        .replace(
          "<p>Does soap work the same in <b>hard</b> water? Mine never lathers at my aunt's house.</p>",
          "<pre>Hard water:&#13;no lather&#13;&#10;at my aunt's</pre>",
        ),
    );
    const run = await importDisqus(t, returns);
    expect([run.code, run.stdout]).toEqual([0, expect.stringContaining("comments: 1 added")]);
    expect(
      await runSql(t, "select content from science_comments where content like 'Hard water:%'"),
    ).toEqual([{ content: "Hard water:\nno lather\nat my aunt's" }]);
  });

  it("leaves out a new reply whose comment came in on another post, under an earlier map", async () => {
    // The first run put thread 8002 on wifi; this export maps it to soap, and holds a new reply there.
    const dir = mkdtempSync(path.join(os.tmpdir(), "ewe-import-"));
    const map = path.join(dir, "map.json");
    writeFileSync(
      map,
      JSON.stringify({ "https://old-blog.example/2021/04/why-cars-need-a-differential": "soap" }),
    );
    const later = path.join(dir, "later.xml");
    writeFileSync(
      later,
      readFileSync(fixture("disqus.xml"), "utf8").replace(
        "</disqus>",
        `<post dsq:id="9301"><message><![CDATA[<p>Agreed, about the gears.</p>]]></message>
          <createdAt>2021-04-12T08:00:00Z</createdAt><author><name>Late Lata</name></author>
          <thread dsq:id="8002"/><parent dsq:id="9006"/></post></disqus>`,
      ),
    );
    const run = await admin(adminEnv(t), "import", "--from", "disqus", "--map", map, later);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain("comments: 0 added, 4 already there");
    expect(run.stdout).toContain(
      '<post> 8 (dsq:id "9301"): it answers a comment on another post\n',
    );
    expect(
      await runSql(t, "select id from science_comments where user_name = 'Late Lata'"),
    ).toEqual([]);
  });

  it("refuses a post whose id is too long to keep, however far into the file, and writes nothing", async () => {
    // 600 posts: the first 500 are written in a batch of their own before the last ones.
    const long = "8".repeat(3000);
    const posts = Array.from(
      { length: 600 },
      (_, i) => `<post dsq:id="${i === 550 ? long : 20_000 + i}">
        <message><![CDATA[<p>Comment ${i}</p>]]></message>
        <createdAt>2021-03-02T08:00:00Z</createdAt>
        <author><name>Reader ${i}</name></author>
        <thread dsq:id="8001"/>
      </post>`,
    );
    const file = path.join(mkdtempSync(path.join(os.tmpdir(), "ewe-import-")), "long-id.xml");
    writeFileSync(
      file,
      `<?xml version="1.0"?><disqus xmlns:dsq="http://disqus.com/disqus-internals">
        <thread dsq:id="8001"><id>soap</id></thread>${posts.join("")}</disqus>`,
    );
    const before = await runSql(t, "select count(*) as n from science_comments");
    const run = await admin(adminEnv(t), "import", "--from", "disqus", file);
    expect([run.code, run.stderr]).toEqual([
      1,
      `Nothing was imported: the input has 1 problem.\n  <post> 551 (dsq:id ${JSON.stringify(`${long.slice(0, 60)}…`)}): has an id too long to keep (a source's ids are short)\n\n`,
    ]);
    expect(await runSql(t, "select count(*) as n from science_comments")).toEqual(before);
  });

  it("brings a WordPress export's approved comments with their parents", async () => {
    const run = await admin(adminEnv(t), "import", "--from", "wordpress", fixture("wordpress.xml"));
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("comments: 2 added");
    expect(run.stdout).toMatch(/id "303"\): not approved in WordPress/);
    expect(run.stdout).toMatch(/id "304"\): a pingback, not a comment/);
    await expect
      .poll(async () => (await commentsOf(t, "ironing")).total, { timeout: 15_000 })
      .toBe(2);
    const [question, answer] = (await commentsOf(t, "ironing")).comments;
    expect(question?.content).toBe(
      "Does adding milk first keep it warmer for longer?\nA friend insists it does.",
    );
    expect(question?.userName).toBe("Tea Taster Tara");
    expect(answer?.parentId).toBe(question?.id);
    const again = await admin(
      adminEnv(t),
      "import",
      "--from",
      "wordpress",
      fixture("wordpress.xml"),
    );
    expect(again.stdout).toContain("comments: 0 added, 2 already there");
  });
});

describe("refusing dangerous or bad input", () => {
  let t: TestApp;
  const dir = mkdtempSync(path.join(os.tmpdir(), "ewe-import-"));
  beforeAll(async () => {
    t = await startTestApp("sqlite");
  });
  afterAll(() => t?.close());

  it.each([
    ["a billion-laughs file", "disqus", fixture("billion-laughs.xml")],
    ["an external entity", "wordpress", fixture("xxe.xml")],
  ])("refuses %s before parsing it, and writes nothing", async (_case, from, file) => {
    const run = await admin(adminEnv(t), "import", "--from", from, file);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/line 2: the file declares a document type or entities/);
    expect(run.stderr).not.toContain("root:");
    expect(await runSql(t, "select id from science_comments")).toEqual([]);
  });

  it("refuses a declaration that the start of a CDATA section inside an XML comment would hide", async () => {
    const hidden = path.join(dir, "hidden-doctype.xml");
    writeFileSync(
      hidden,
      readFileSync(fixture("disqus.xml"), "utf8")
        .replace(
          "\n<disqus ",
          '\n<!-- <![CDATA[ -->\n<!DOCTYPE disqus [<!ENTITY who "Entity Eve">]>\n<!-- ]]> -->\n<disqus ',
        )
        .replace("<name>Lathering Lakshmi</name>", "<name>&who;</name>"),
    );
    const run = await importDisqus(t, hidden);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/line 3: the file declares a document type or entities/);
    expect(await runSql(t, "select id from science_comments")).toEqual([]);
  });

  it("takes a comment that mentions <!DOCTYPE html> in its text for text, not a declaration", async () => {
    const mentions = path.join(dir, "mentions-doctype.xml");
    writeFileSync(
      mentions,
      readFileSync(fixture("disqus.xml"), "utf8").replace(
        "Mine never lathers at my aunt's house.",
        "Mine never lathers; my page starts with <!DOCTYPE html> and <!ENTITY> too.",
      ),
    );
    const dry = await importDisqus(t, "--dry-run", mentions);
    expect(dry.stderr).not.toContain("declares a document type");
    expect([dry.code, dry.stdout]).toEqual([0, expect.stringContaining("comments: 4 to add")]);
  });

  it.each([
    ["disqus", fixture("disqus.xml"), "Lathering Lakshmi", "ARJUN RAO"],
    ["wordpress", fixture("wordpress.xml"), "Tea Taster Tara", "Arjun R."],
    [
      "original",
      fixture("original/science_comments_rows.csv"),
      "Router Ravi",
      "\u0410rjun R\u0430\u043e",
    ],
  ])(
    "counts a %s comment under the owner's name, in a spelling the comment form refuses, which comes in as a reader's",
    async (from, source, reader, name) => {
      const file = path.join(mkdtempSync(path.join(dir, `${from}-`)), path.basename(source));
      writeFileSync(file, readFileSync(source, "utf8").replace(reader, name));
      const run = await admin(
        { ...adminEnv(t), SITE_OWNER_NAME: "Arjun Rao" },
        "import",
        "--from",
        from,
        "--map",
        fixture("disqus-map.json"),
        "--dry-run",
        file,
      );
      expect(run.code).toBe(0);
      expect(run.stdout).toContain(
        "1 comment under the owner's name, or one like it, comes in as a reader's, without the Author badge",
      );
      expect(await runSql(t, "select id from science_comments")).toEqual([]);
    },
  );

  it("quotes a --map file's keys and values and a page's link in its lines, each cut after 60 characters", async () => {
    const long = `https://notebook.example/${"a-very-long-slug-".repeat(6)}`;
    const cut = JSON.stringify(`${long.slice(0, 60)}…`);
    const map = path.join(dir, "map.json");
    writeFileSync(map, JSON.stringify({ [`${long}"\n`]: `${long}-gone`, 'say "hi"': "nothing" }));
    const mapped = await admin(
      adminEnv(t),
      "import",
      "--from",
      "wordpress",
      "--map",
      map,
      fixture("wordpress.xml"),
    );
    expect(mapped.code).toBe(1);
    expect(mapped.stderr).toContain(`  --map ${cut}: names no science post or story: ${cut}\n`);
    expect(mapped.stderr).toContain(
      '  --map "say \\"hi\\"": names no science post or story: "nothing"\n',
    );

    const moved = path.join(dir, "moved.xml");
    writeFileSync(
      moved,
      readFileSync(fixture("wordpress.xml"), "utf8")
        .replace("<link>https://notebook.example/2020/01/ironing/</link>", `<link>${long}</link>`)
        .replace(
          "<wp:post_name><![CDATA[ironing]]></wp:post_name>",
          "<wp:post_name><![CDATA[moved]]></wp:post_name>",
        ),
    );
    const run = await admin(adminEnv(t), "import", "--from", "wordpress", "--dry-run", moved);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain(
      `(id "301"): its post ${cut} matches no science post: map it with --map FILE\n`,
    );
  });

  it("names a post whose HTML nests deeper than any comment, and writes nothing", async () => {
    const nested = path.join(dir, "nested.xml");
    writeFileSync(
      nested,
      readFileSync(fixture("disqus.xml"), "utf8").replace(
        "<p>Does soap work the same in <b>hard</b> water?",
        `<p>${"<b>".repeat(50_000)}Does soap work the same in hard water?`,
      ),
    );
    const map = ["--map", fixture("disqus-map.json")];
    const run = await admin(adminEnv(t), "import", "--from", "disqus", ...map, nested);
    expect([run.code, run.stderr]).toEqual([
      1,
      'Nothing was imported: the input has 1 problem.\n  <post> 1 (dsq:id "9001") text: nests its HTML too deep to be read as a comment\n\n',
    ]);
    expect(await runSql(t, "select id from science_comments")).toEqual([]);
  });

  it("reads an export with nothing in it as nothing to import, not as another file", async () => {
    for (const [from, text] of [
      ["disqus", '<?xml version="1.0"?>\n<disqus xmlns="http://disqus.com"></disqus>\n'],
      ["wordpress", '<?xml version="1.0"?>\n<rss version="2.0"><channel></channel></rss>\n'],
    ] as const) {
      const empty = path.join(dir, `empty-${from}.xml`);
      writeFileSync(empty, text);
      const run = await admin(adminEnv(t), "import", "--from", from, "--dry-run", empty);
      expect(run.stderr).toBe("");
      expect(run.code).toBe(0);
      expect(run.stdout).toContain("comments: 0 to add");
    }
  });

  it("reports malformed XML with its line, and every bad post, and writes nothing", async () => {
    const torn = path.join(dir, "torn.xml");
    writeFileSync(torn, '<?xml version="1.0"?>\n<disqus>\n  <thread dsq:id="1">\n</disqus>\n');
    const tornRun = await admin(adminEnv(t), "import", "--from", "disqus", torn);
    expect(tornRun.code).toBe(1);
    expect(tornRun.stderr).toMatch(/line \d+, column \d+: malformed XML/);
    // Well-formed, but nested deeper than any export: a problem of the file, not a failure.
    const deep = path.join(dir, "deep.xml");
    writeFileSync(
      deep,
      `<?xml version="1.0"?><disqus>${"<a>".repeat(500)}${"</a>".repeat(500)}</disqus>`,
    );
    const deepRun = await admin(adminEnv(t), "import", "--from", "disqus", deep);
    expect(deepRun.code).toBe(1);
    expect(deepRun.stderr.trim()).toBe(
      "Nothing was imported: the input has 1 problem.\n  file: cannot be read: Maximum nested tags exceeded",
    );

    const post = (id: number | string, body: string, date: string, name = "Reader") =>
      `<post dsq:id="${id}"><message><![CDATA[${body}]]></message><createdAt>${date}</createdAt><isDeleted>false</isDeleted><isSpam>false</isSpam><author><name>${name}</name></author><thread dsq:id="1"/></post>`;
    const bad = path.join(dir, "bad.xml");
    writeFileSync(
      bad,
      `<?xml version="1.0"?><disqus xmlns:dsq="http://disqus.com/disqus-internals"><thread dsq:id="1"><id>soap</id></thread>
      ${post(1, "A fine comment about soap.", "2021-01-01T00:00:00Z")}
      ${post(1, "The same id again.", "2021-01-02T00:00:00Z")}
      ${post(2, "x".repeat(2001), "2021-01-03T00:00:00Z")}
      ${post(3, "Written tomorrow.", "2999-01-01T00:00:00Z")}
      ${post(4, "A name too long.", "2021-01-04T00:00:00Z", "n".repeat(41))}
      ${post(5, "Before the calendar.", "0000-06-01T00:00:00Z")}
      ${post("7".repeat(5000), "A long id.", "2021-01-05T00:00:00Z")}
      ${post("7".repeat(5000), "The long id again.", "2021-01-05T00:00:00Z")}
      </disqus>`,
    );
    const run = await admin(adminEnv(t), "import", "--from", "disqus", bad);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("Nothing was imported: the input has 8 problems.");
    expect(run.stderr).toContain(`<post> 2 (dsq:id "1"): repeats an earlier comment's id`);
    // An id as long as a page is cut in its line.
    expect(run.stderr).toContain(
      `<post> 8 (dsq:id "${"7".repeat(60)}…"): repeats an earlier comment's id\n`,
    );
    expect(run.stderr).toContain(
      `<post> 7 (dsq:id "${"7".repeat(60)}…"): has an id too long to keep (a source's ids are short)\n`,
    );
    expect(run.stderr).toContain(
      '<post> 3 (dsq:id "2") text: Comments are at most 2000 characters.',
    );
    expect(run.stderr).toContain(
      '<post> 4 (dsq:id "3") date: 2999-01-01T00:00:00.000Z is in the future',
    );
    expect(run.stderr).toContain('<post> 5 (dsq:id "4") name: Names are at most 40 characters.');
    expect(run.stderr).toContain('<post> 6 (dsq:id "5") date: is not a date');
    expect(await runSql(t, "select id from science_comments")).toEqual([]);
  });
});
