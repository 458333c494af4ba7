import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { commentResponseSchema, errorResponseSchema } from "../../contract/api.ts";
import { consoleCommentsResponseSchema, overviewResponseSchema } from "../../contract/console.ts";
import { migrateToLatest } from "../../server/db/store.ts";
import { defaultSpamModelFile } from "../../server/moderation/spam/filter.ts";
import { createSpamModel, featuresOf, type ModelFile } from "../../server/moderation/spam/model.ts";
import { admin, adminEnv } from "./support/admin.ts";
import { Owner } from "./support/owner.ts";
import { scratchStore } from "./support/scratch-store.ts";
import { runSql } from "./support/sql.ts";
import { backends, freshItem, json, seen, startTestApp, type TestApp } from "./support/test-app.ts";
import { startReceiver } from "./support/webhook-receiver.ts";

/*
 * The spam filter at the default settings (docs/moderation.md, "The spam filter";
 * docs/decisions/025-spam-that-learns.md), against the real server: links and
 * contact details from browsers not yet trusted wait for the owner, junk the
 * classifier is sure of is stored as spam silently, and the owner's decisions
 * teach it, on SQLite and PostgreSQL.
 */

describe("the classifier as the build writes it", () => {
  it("scores a reader's short professional sentence, in its trade's words, far below the hold line", () => {
    const file = JSON.parse(readFileSync(defaultSpamModelFile, "utf8")) as ModelFile;
    const model = createSpamModel(file);
    // None of these is in the corpus; the first was once held.
    const sentences = [
      "As a DFMEA facilitator I agree that severity ratings get inflated in reviews.",
      "We saw the same inflation of severity scores in our supplier audits.",
      "Our team rates detection too generously when an end-of-line test exists.",
      "In my experience occurrence ratings are guessed when field data is missing.",
      "As a GD&T trainer I see position tolerances misread more than any other callout.",
      "As a plant manager I find the control plan is the document nobody reads after launch.",
    ];
    const scores = sentences.map((text) => [text, model.score(featuresOf(text))] as const);
    for (const [text, score] of scores) {
      expect([text, score < file.thresholds.hold / 2]).toEqual([text, true]);
    }
  });
});

describe("the classifier as a server keeps it", () => {
  it("holds the build's model in a fraction of what its file parsed as JSON takes", () => {
    // Measured in a process of its own (support/spam-model-held.ts): in this worker,
    // what other test files left running allocates while the heap is measured.
    const out = execFileSync(
      process.execPath,
      ["--expose-gc", path.join(import.meta.dirname, "support", "spam-model-held.ts")],
      { encoding: "utf8" },
    );
    const { grownMb, outcome } = JSON.parse(out.trim().split("\n").at(-1) ?? "") as {
      grownMb: number;
      outcome: string;
    };
    expect(outcome).toBe("published");
    // Parsed as JSON, its 38,570 features' counts took about 5 MB of heap.
    expect(grownMb).toBeLessThan(2.5);
  });
});

describe.each(backends)("the spam filter on %s", (backend) => {
  let t: TestApp;
  // The owner's notifications, to see that a comment held again is notified as any held one.
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  beforeAll(async () => {
    receiver = await startReceiver([]);
    t = await startTestApp(backend, {
      env: { WEBHOOK_URL: receiver.url, WEBHOOK_SECRET: "webhook-secret-for-the-tests-0123456789" },
    });
  });
  afterAll(async () => {
    await t?.close();
    await receiver?.close();
  });

  const published = async (postId: string) =>
    (
      seen(await t.visitor().get(`/api/items/science/${postId}/comments`)).comments as {
        content: string;
      }[]
    ).map((c) => c.content);

  /** Posts from a new browser; returns the answer's comment. */
  async function post(postId: string, text: string, visitor = t.visitor()) {
    const response = await visitor.comment(postId, text, "Reader");
    expect([response.statusCode, text]).toEqual([201, text]);
    return json(response, commentResponseSchema).comment as {
      id: number;
      awaitingApproval: boolean;
    };
  }

  it("holds links and contact details from a browser it does not trust yet, disguised ones too", async () => {
    const postId = freshItem("science");
    const held = [
      "Here is the datasheet I mentioned: https://motorparts-catalogue.com/pdf/ec-motor",
      "Write to me for the drawings: ravi [at] mailbox [dot] com",
      "The full guide is on our page, gearworks dot com, have a look.",
      "Telegram: gearguru_99",
      "For the spare parts list call nine eight seven six five four three two one zero",
      // Written with character references and escapes, shown as the link itself.
      "The datasheet I mentioned: [the PDF](https&#58;//motorparts-catalogue&#46;com/pdf/ec-motor)",
      "The datasheet I mentioned: https\\://motorparts-catalogue\\.com/pdf/ec-motor",
    ];
    for (const text of held) {
      const comment = await post(postId, text);
      // Held for the owner, or (what the classifier is sure of) stored as spam.
      const [row] = await runSql(t, "select outcome from spam_screening where comment_id = ?", [
        comment.id,
      ]);
      expect([text, row?.outcome === "published"]).toEqual([text, false]);
    }
    expect(await published(postId)).toEqual([]);
    // What a reader cites, and a name with no way to reach anyone, are published.
    const reader = await post(
      postId,
      "There is more on this on Wikipedia: https://en.wikipedia.org/wiki/Atkinson_cycle",
    );
    expect(reader.awaitingApproval).toBe(false);
    // A degree is no address, though it is written like one.
    const degrees = await post(
      postId,
      "I did my B.Tech and M.Tech in mechanical engineering, and a B.Com before that.",
    );
    expect(degrees.awaitingApproval).toBe(false);
  });

  it("holds a reply with a link from a browser it does not trust yet", async () => {
    const postId = freshItem("science");
    const parent = await post(postId, "Which gear oil suits a small lathe's headstock?");
    expect(parent.awaitingApproval).toBe(false);
    const text =
      "I wrote up my lathe's gearbox here: https://lathe-notes.example-build.com/gearbox";
    const response = await t.visitor().reply(postId, parent.id, text, "Reader");
    expect(response.statusCode).toBe(201);
    expect(json(response, commentResponseSchema).comment.awaitingApproval).toBe(true);
    expect(await published(postId)).not.toContain(text);
  });

  it("screens an edit as a new comment: clean words edited into a link are held again, into junk stored as spam", async () => {
    const postId = freshItem("science");
    const screening = async (id: number) =>
      (await runSql(t, "select outcome, reason from spam_screening where comment_id = ?", [id]))[0];
    const edit = (writer: ReturnType<TestApp["visitor"]>, id: number, content: string) =>
      writer.patch(`/api/comments/${id}`, { content, userName: "Reader" });

    // A link edited in: held, as a new comment with it would be.
    const linker = t.visitor();
    const first = await post(postId, "Which bearing grease works best in a wet climate?", linker);
    expect(first.awaitingApproval).toBe(false);
    // Written with character references, as the page shows it: the link itself.
    const linked =
      "Which bearing grease works best? Mine is at https&#58;//grease-deals-online&#46;shop/best";
    const answer = await edit(linker, first.id, linked);
    expect(answer.statusCode).toBe(200);
    expect(json(answer, commentResponseSchema).comment.awaitingApproval).toBe(true);
    // Gone for other readers; its writer sees it awaiting approval.
    expect(await published(postId)).not.toContain(linked);
    const own = seen(await linker.get(`/api/items/science/${postId}/comments`)).comments;
    expect(
      own.map((c: { content: string; awaitingApproval: boolean }) => [
        c.content,
        c.awaitingApproval,
      ]),
    ).toEqual([[linked, true]]);
    // Held for the link from a stranger, or by the score its words and link earn.
    expect(await screening(first.id)).toMatchObject({ outcome: "pending" });
    // The owner is told, as of any held comment, and sees why in the console.
    const notice = () =>
      receiver.hits
        .map((hit) => JSON.parse(hit.body))
        .find((body) => body.comment.id === first.id && body.type === "comment.held");
    await expect.poll(notice, { timeout: 20_000 }).toBeTruthy();
    const owner = new Owner(t);
    await owner.signIn();
    const pending = json(
      await owner.get("/api/admin/comments"),
      consoleCommentsResponseSchema,
    ).pending;
    const listed = pending.find((c) => c.id === first.id);
    expect(listed?.why).toMatch(/grease-deals-online\.shop|classifier scored it/);

    // Junk edited in: stored as spam, silently; its writer still sees it as posted.
    const spammer = t.visitor();
    const second = await post(postId, "How long do scooter brake pads usually last?", spammer);
    const junk =
      "Double your salary from your phone with our trading app, no experience needed, join the VIP group today.";
    const junked = await edit(spammer, second.id, junk);
    expect(junked.statusCode).toBe(200);
    expect(json(junked, commentResponseSchema).comment.awaitingApproval).toBe(false);
    expect(await published(postId)).not.toContain(junk);
    const mine = seen(await spammer.get(`/api/items/science/${postId}/comments`)).comments;
    expect(mine.map((c: { content: string }) => c.content)).toContain(junk);
    expect(await screening(second.id)).toEqual({ outcome: "spam", reason: "score" });

    // An ordinary edit stays published.
    const reader = t.visitor();
    const third = await post(postId, "Do ceramic brake pads squeal more in the cold?", reader);
    const fixed = "Do ceramic brake pads squeal more in the cold, or only when they are new?";
    expect(
      json(await edit(reader, third.id, fixed), commentResponseSchema).comment.awaitingApproval,
    ).toBe(false);
    expect(await published(postId)).toContain(fixed);
  });

  it("publishes one link to a reader's own project in plainly ordinary words, and holds junk that puts its link there", async () => {
    const postId = freshItem("science");
    const own =
      "I wrote a small Python script to work out gear ratios for a go-kart, it is here: https://github.com/kiran-mech/gear-ratios";
    expect((await post(postId, own)).awaitingApproval).toBe(false);
    const junk =
      "Our workshop sells clutch plates for every bike model, have a look: https://clutchplates-shop.netlify.app";
    const outcome = (
      await runSql(t, "select outcome from spam_screening where comment_id = ?", [
        (await post(postId, junk)).id,
      ])
    )[0]?.outcome;
    expect(outcome).toMatch(/^(?:pending|spam)$/);
    expect(await published(postId)).toEqual([own]);
  });

  it("trusts a browser after three published comments without links, or once the owner approved one", async () => {
    const postId = freshItem("science");
    const regular = t.visitor();
    for (const text of [
      "Why does a diesel engine idle so roughly on winter mornings?",
      "The gear ratio part was clear. How do I pick a ratio for a small go-kart?",
      "My first EV taught me more about batteries than college did.",
    ]) {
      expect((await post(postId, text, regular)).awaitingApproval).toBe(false);
    }
    const link = "The motor's efficiency map is on page 4: https://motorparts-catalogue.com/ec.pdf";
    expect((await post(postId, link, regular)).awaitingApproval).toBe(false);

    const newcomer = t.visitor();
    const first = await post(
      postId,
      "My calculator for charging costs: https://evcostcalc.in",
      newcomer,
    );
    expect(first.awaitingApproval).toBe(true);
    expect((await admin(adminEnv(t), "comments", "approve", String(first.id))).code).toBe(0);
    const second = await post(
      postId,
      "I updated it with night tariffs: https://evcostcalc.in/night",
      newcomer,
    );
    expect(second.awaitingApproval).toBe(false);
    expect(await published(postId)).toContain(link);
  });

  it("stores junk the classifier is sure of as spam, silently: its writer sees it posted, nobody else", async () => {
    const postId = freshItem("science");
    const writer = t.visitor();
    const text =
      "Earn ₹40,000 every week from your phone with our trading app, no experience needed, join the group today.";
    const comment = await post(postId, text, writer);
    expect(comment.awaitingApproval).toBe(false);
    const own = seen(await writer.get(`/api/items/science/${postId}/comments`)).comments;
    expect(own.map((c: { content: string }) => c.content)).toEqual([text]);
    expect(await published(postId)).toEqual([]);
    const rows = await runSql(
      t,
      "select outcome, reason from spam_screening where comment_id = ?",
      [comment.id],
    );
    expect(rows).toEqual([{ outcome: "spam", reason: "score" }]);

    // After a restart (a second instance that has screened nothing yet), the
    // console still gives the classifier's lines, read from the model.
    const restarted = await startTestApp(backend, {
      dataDir: t.dataDir,
      ...(t.databaseUrl ? { databaseUrl: t.databaseUrl } : {}),
    });
    try {
      const owner = new Owner(restarted);
      await owner.signIn();
      const listed = json(await owner.get("/api/admin/comments"), consoleCommentsResponseSchema);
      const why = listed.comments.find((c) => c.id === comment.id)?.why;
      expect(why).toMatch(
        /^The classifier scored it 1\.00 \(held from 0\.\d+, spam from 0\.\d+\)$/,
      );
    } finally {
      await restarted.close();
    }
  });

  it("refuses blocked words spelled out and run into the next word", async () => {
    const postId = freshItem("science");
    for (const text of ["v i a g r a n o w", "c a s i n o b o n u s"]) {
      const response = await t.visitor().comment(postId, text, "Reader");
      expect([text, response.statusCode, json(response, errorResponseSchema).error?.code]).toEqual([
        text,
        422,
        "blocked_content",
      ]);
    }
  });

  it("learns from three spam marks in the console: a fourth naming the product or site in other words is not published", async () => {
    const postId = freshItem("science");
    const owner = new Owner(t);
    await owner.signIn();
    // Before: the product's name alone is nothing to the filter.
    const before = await post(
      postId,
      "Does anyone know if Quorvexa is sold in Pune? A friend asked.",
    );
    expect(before.awaitingApproval).toBe(false);
    const trusted = t.visitor();
    for (const text of [
      "Is the efficiency of a fuel cell higher at part load?",
      "Thanks for the post on heat exchangers, it helped at work.",
      "Which oil grade suits an old diesel in a hot climate?",
    ]) {
      await post(postId, text, trusted);
    }
    const site = "I read about cheaper spare parts at glintoria.shop, is it any good?";
    expect((await post(postId, site, trusted)).awaitingApproval).toBe(false);

    for (const text of [
      "Quorvexa drops fixed my knee pain in a week, everyone over forty should try them.",
      "My whole family takes Quorvexa every morning now, best thing we did this year.",
      "Started Quorvexa last month and I already climb stairs without trouble.",
      "The brake pads from glintoria.shop lasted a year on my scooter.",
      "I ordered a timing belt from glintoria.shop for my old Santro.",
      "My cousin buys all his filters from glintoria.shop.",
    ]) {
      const comment = await post(postId, text);
      expect((await owner.post(`/api/admin/comments/${comment.id}/spam`)).statusCode).toBe(204);
    }
    // Marked: gone from every reader's page.
    expect(await published(postId)).not.toContain(
      "My whole family takes Quorvexa every morning now, best thing we did this year.",
    );

    // Held for the owner, or stored as spam: not published either way.
    const outcome = async (id: number) =>
      (await runSql(t, "select outcome from spam_screening where comment_id = ?", [id]))[0]
        ?.outcome;
    const fourth = "Has anyone else tried quorvexa? My neighbour swears by it for his joints.";
    expect(await outcome((await post(postId, fourth)).id)).toMatch(/^(?:pending|spam)$/);
    const fromTrusted = "Someone at work mentioned glintoria dot shop for filters, thoughts?";
    expect(await outcome((await post(postId, fromTrusted, trusted)).id)).toMatch(
      /^(?:pending|spam)$/,
    );
    const shown = await published(postId);
    expect(shown).not.toContain(fourth);
    expect(shown).not.toContain(fromTrusted);

    // The owner sees why, in the console's lists, and how many on the Overview.
    const listed = json(await owner.get("/api/admin/comments"), consoleCommentsResponseSchema);
    const spamList = json(
      await owner.get("/api/admin/comments?status=spam"),
      consoleCommentsResponseSchema,
    ).comments;
    const why = (text: string) =>
      [...listed.pending, ...spamList].find((c) => c.content === text)?.why;
    expect(why(fourth)).toMatch(/quorvexa/);
    expect(why(fromTrusted)).toMatch(/glintoria/);
    const family = "My whole family takes Quorvexa every morning now, best thing we did this year.";
    expect(spamList.map((c) => c.content)).toContain(family);
    const overview = json(await owner.get("/api/admin/overview"), overviewResponseSchema);
    expect(overview.moderation.spam).toBeGreaterThanOrEqual(6);
    expect(overview.moderation.held + overview.moderation.spam).toBeGreaterThanOrEqual(8);

    // One click publishes a false alarm, and teaches the filter the opposite.
    const marked = spamList.find((c) => c.content === family);
    expect((await owner.post(`/api/admin/comments/${marked?.id}/approve`)).statusCode).toBe(204);
    expect(await published(postId)).toContain(family);

    // `admin spam stats` tells what happened.
    const stats = await admin(adminEnv(t), "spam", "stats", "--json");
    expect(stats.code).toBe(0);
    const report = JSON.parse(stats.stdout);
    // Approved once, "quorvexa" is no longer a name only junk uses; the site still is.
    expect(report.model.learnedTerms).toContain("glintoria.shop");
    expect(report.model.learnedTerms).not.toContain("quorvexa");
    expect(report.decisions).toEqual(
      expect.arrayContaining([expect.objectContaining({ source: "spam", count: 6 })]),
    );
    const text = await admin(adminEnv(t), "spam", "stats");
    expect(text.stdout).toMatch(/names and sites learnt from your spam marks: .*glintoria\.shop/);
  });

  it("counts in `admin spam stats` the owner's corrections of the filter apart from its confirmations", async () => {
    const postId = freshItem("science");
    type Row = { source: string; count: number };
    const report = async () => {
      const stats = await admin(adminEnv(t), "spam", "stats", "--json");
      expect(stats.code).toBe(0);
      const json = JSON.parse(stats.stdout) as Record<
        "decisions" | "corrections" | "confirmations",
        Row[]
      >;
      const bySource = (rows: Row[]) => Object.fromEntries(rows.map((r) => [r.source, r.count]));
      return {
        decisions: bySource(json.decisions),
        corrections: bySource(json.corrections),
        confirmations: bySource(json.confirmations),
      };
    };
    const before = await report();
    const cli = async (...argv: string[]) =>
      expect((await admin(adminEnv(t), ...argv)).code).toBe(0);

    // Stored as spam by the filter, published by the owner: a correction.
    const junk = await post(
      postId,
      "Win ₹50,000 every day on our cricket betting app, sure tips, join the VIP group today.",
    );
    await cli("comments", "approve", String(junk.id));
    // Published by the filter, marked as spam by the owner: a correction.
    const passed = await post(postId, "Has anyone bought the Zentrovix pressure valve? Worth it?");
    await cli("comments", "spam", String(passed.id));
    // Held for a stranger's link, marked as spam: a confirmation.
    const held = await post(postId, "Valves for every cooker at https://valve-bazaar.in/shop");
    await cli("comments", "spam", String(held.id));
    // Held for a stranger's link, approved: the policy asked, the owner answered; neither.
    const asked = await post(postId, "My test rig for the valve: https://valve-rig-notes.in/log");
    await cli("comments", "approve", String(asked.id));

    const after = await report();
    const delta = (key: keyof typeof after, source: string) =>
      (after[key][source] ?? 0) - (before[key][source] ?? 0);
    expect({
      decisions: [
        delta("decisions", "publish"),
        delta("decisions", "spam"),
        delta("decisions", "approve"),
      ],
      corrections: [
        delta("corrections", "publish"),
        delta("corrections", "spam"),
        delta("corrections", "approve"),
      ],
      confirmations: [delta("confirmations", "spam"), delta("confirmations", "approve")],
    }).toEqual({ decisions: [1, 2, 1], corrections: [1, 1, 0], confirmations: [1, 0] });
    const text = await admin(adminEnv(t), "spam", "stats");
    expect(text.stdout).toMatch(
      /your corrections \(you overruled the filter[^\n]*\n[\s\S]*published from the spam list/,
    );
    expect(text.stdout).toMatch(/your confirmations[^\n]*\n[\s\S]*marked as spam/);
  });

  it("keeps no copy of a comment's text once it is deleted or edited, whatever the owner judged it", async () => {
    const postId = freshItem("science");
    const writer = t.visitor();
    const held = await post(postId, "My build log is at https://gokart-log.in/build", writer);
    expect((await admin(adminEnv(t), "comments", "approve", String(held.id))).code).toBe(0);
    const marked = await post(
      postId,
      "The bearings I got from ironleaf were fine, cheaper than the dealer.",
      writer,
    );
    expect((await admin(adminEnv(t), "comments", "spam", String(marked.id))).code).toBe(0);
    const edited = await post(postId, "Which grease suits a go-kart axle bearing?", writer);
    expect((await admin(adminEnv(t), "comments", "spam", String(edited.id))).code).toBe(0);
    const examples = () =>
      runSql(
        t,
        "select comment_id, content, features from spam_examples where comment_id in (?, ?, ?) order by comment_id",
        [held.id, marked.id, edited.id],
      );
    expect(await examples()).toHaveLength(3);

    expect((await writer.delete(`/api/comments/${held.id}`)).statusCode).toBe(204);
    expect((await writer.delete(`/api/comments/${marked.id}`)).statusCode).toBe(204);
    const edit = await writer.patch(`/api/comments/${edited.id}`, {
      content: "Which grease suits a go-kart axle bearing in the rain?",
      userName: "Reader",
    });
    expect(edit.statusCode).toBe(200);
    // The approved comment's example is gone; of those marked as junk, only what the filter
    // learnt stays (words and word pieces in no order), never the text.
    const left = await examples();
    expect(left.map((row) => [row.comment_id, row.content])).toEqual([
      [marked.id, ""],
      [edited.id, ""],
    ]);
    expect(JSON.stringify(left)).not.toContain("cheaper than the dealer");
    expect(JSON.stringify(left)).not.toContain("go-kart axle bearing");
  });

  it("keeps no copy of a comment the owner rejects, from the console or the command line", async () => {
    const postId = freshItem("science");
    const owner = new Owner(t);
    expect((await owner.signIn()).statusCode).toBe(200);
    const fromConsole = await post(
      postId,
      "My home is at 14 Lake Road, see https://lake-road.in/me",
    );
    const fromCli = await post(postId, "Call me on the lake road line: https://lake-line.in/call");
    expect([fromConsole.awaitingApproval, fromCli.awaitingApproval]).toEqual([true, true]);
    expect((await owner.post(`/api/admin/comments/${fromConsole.id}/reject`)).statusCode).toBe(204);
    expect((await admin(adminEnv(t), "comments", "reject", String(fromCli.id))).code).toBe(0);
    // Rejected is deleted: the filter keeps neither the text nor its words.
    expect(
      await runSql(t, "select content, features from spam_examples where comment_id in (?, ?)", [
        fromConsole.id,
        fromCli.id,
      ]),
    ).toEqual([]);
  });

  it("forgets at the upgrade the text of comments rejected before, and keeps the other decisions", async () => {
    const scratch = await scratchStore(backend);
    try {
      await scratch.migrateTo("046_fediverse_queue_slow");
      const example = (commentId: number, source: string, content: string) => ({
        comment_id: commentId,
        label: source === "approve" ? ("ham" as const) : ("spam" as const),
        source,
        content,
        features: null,
        created_at: new Date().toISOString(),
      });
      await scratch.store.db
        .insertInto("spam_examples")
        .values([
          example(1, "reject", "My home is at 14 Lake Road."),
          example(2, "approve", "Which grease suits a bearing?"),
        ])
        .execute();
      await migrateToLatest(scratch.store);
      const left = await scratch.store.db
        .selectFrom("spam_examples")
        .select(["comment_id", "content"])
        .execute();
      expect(left).toEqual([{ comment_id: 2, content: "Which grease suits a bearing?" }]);
    } finally {
      await scratch.drop();
    }
  });

  it("remembers the owner's spam marks after the spammer deletes those comments", async () => {
    const postId = freshItem("science");
    const owner = new Owner(t);
    await owner.signIn();
    const spammer = t.visitor();
    const marked: number[] = [];
    for (const text of [
      "Velmorix capsules cleared my sinus in two days, order a pack today.",
      "Our whole office swears by Velmorix for energy through the afternoon.",
      "Velmorix is the only supplement my trainer recommends, try it now.",
    ]) {
      const comment = await post(postId, text, spammer);
      expect((await owner.post(`/api/admin/comments/${comment.id}/spam`)).statusCode).toBe(204);
      marked.push(comment.id);
    }
    for (const id of marked) {
      expect((await spammer.delete(`/api/comments/${id}`)).statusCode).toBe(204);
    }
    const kept = await runSql(
      t,
      "select content from spam_examples where comment_id in (?, ?, ?)",
      marked,
    );
    expect(kept.map((row) => row.content)).toEqual(["", "", ""]);

    const again = await post(
      postId,
      "Has anyone here tried velmorix? It did wonders for my uncle.",
    );
    const outcome = await runSql(t, "select outcome from spam_screening where comment_id = ?", [
      again.id,
    ]);
    expect(outcome[0]?.outcome).toMatch(/^(?:pending|spam)$/);
    expect(await published(postId)).not.toContain(
      "Has anyone here tried velmorix? It did wonders for my uncle.",
    );
  });
  it("forgets the spam it caught once it is 30 days old, at the next start, and keeps what the owner marked", async () => {
    const postId = freshItem("science");
    /** A comment the honeypot catches: stored as spam, answered as if posted. */
    const caught = async (content: string) => {
      const response = await t.visitor().post(`/api/items/science/${postId}/comments`, {
        content,
        userName: "Gear Deals",
        formToken: t.commentToken(),
        website: "http://gear-oil-deals.example",
      });
      expect(response.statusCode).toBe(201);
      return json(response, commentResponseSchema).comment.id;
    };
    const old = await caught("Gear oil in bulk at the lowest price this month, order now.");
    const recent = await caught("Gear oil in bulk again, the lowest price this week.");
    const marked = await post(postId, "Zentrovix valves for every cooker, order a box today.");
    expect((await admin(adminEnv(t), "comments", "spam", String(marked.id))).code).toBe(0);
    const monthAgo = new Date(Date.now() - 31 * 24 * 60 * 60 * 1000).toISOString();
    await runSql(t, "update science_comments set created_at = ? where id in (?, ?)", [
      monthAgo,
      old,
      marked.id,
    ]);
    const left = async () =>
      (
        await runSql(t, "select id from science_comments where id in (?, ?, ?) order by id", [
          old,
          recent,
          marked.id,
        ])
      ).map((row) => Number(row.id));
    expect(await left()).toEqual([old, recent, marked.id]);

    const restarted = await startTestApp(backend, {
      ...(t.databaseUrl ? { databaseUrl: t.databaseUrl } : {}),
      dataDir: t.dataDir,
    });
    try {
      await expect.poll(left).toEqual([recent, marked.id]);
    } finally {
      await restarted.close();
    }
  });
});

describe("the spam filter on two instances of one PostgreSQL", () => {
  const env = { COOKIE_SECRET: "two-instances-secret-0123456789abcdefgh" };
  let a: TestApp;
  let b: TestApp;
  beforeAll(async () => {
    a = await startTestApp("postgres", { env });
    b = await startTestApp("postgres", { env, databaseUrl: a.databaseUrl });
  });
  afterAll(async () => {
    await b?.close();
    await a?.close();
  });

  async function post(t: TestApp, postId: string, text: string, visitor = t.visitor()) {
    const response = await visitor.comment(postId, text, "Reader");
    expect([response.statusCode, text]).toEqual([201, text]);
    return json(response, commentResponseSchema).comment as {
      id: number;
      awaitingApproval: boolean;
    };
  }
  const outcome = async (t: TestApp, id: number) =>
    (await runSql(t, "select outcome from spam_screening where comment_id = ?", [id]))[0]?.outcome;

  it("learns on one instance what the owner marked on the other", async () => {
    const postId = freshItem("science");
    // B has scored a comment before: its model is loaded, and must still learn.
    expect(
      (await post(b, postId, "Which coolant suits an old diesel in summer?")).awaitingApproval,
    ).toBe(false);
    const trusted = b.visitor();
    for (const text of [
      "Is a heat exchanger's efficiency lower when it scales up?",
      "Thanks for the post on gear pumps, it helped at work.",
      "Which grease suits a bicycle hub in the rain?",
    ]) {
      await post(b, postId, text, trusted);
    }

    const owner = new Owner(a);
    await owner.signIn();
    for (const text of [
      "Vortimaxx tablets gave my father his energy back in ten days, buy them for your parents too.",
      "Our whole office switched to Vortimaxx this year and nobody gets tired after lunch any more.",
      "I tried Vortimaxx before the marathon and finished an hour faster than last year.",
      "Got my new helmet from brelvox.shop, cheaper than any showroom.",
      "The phone covers at brelvox.shop are the best I have bought.",
      "My sister orders her kitchen things from brelvox.shop, she likes it.",
    ]) {
      const comment = await post(a, postId, text);
      expect((await owner.post(`/api/admin/comments/${comment.id}/spam`)).statusCode).toBe(204);
    }

    const product = "Does anyone here know where vortimaxx is sold in Nagpur? My uncle wants some.";
    expect(await outcome(b, (await post(b, postId, product)).id)).toMatch(/^(?:pending|spam)$/);
    const site = "A colleague keeps talking about brelvox dot shop for spare parts, any good?";
    expect(await outcome(b, (await post(b, postId, site, trusted)).id)).toMatch(
      /^(?:pending|spam)$/,
    );
    const shown = (
      seen(await b.visitor().get(`/api/items/science/${postId}/comments`)).comments as {
        content: string;
      }[]
    ).map((c) => c.content);
    expect(shown).not.toContain(product);
    expect(shown).not.toContain(site);
  });
});
