import { mkdtempSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { errorResponseSchema, formTokenResponseSchema } from "../../contract/api.ts";
import { confirmStateResponseSchema } from "../../contract/newsletter.ts";
import { admin, adminEnv, parseExport } from "./support/admin.ts";
import { mailingApp } from "./support/mailing-app.ts";
import { requestSubscription, tokenOfMail } from "./support/newsletter.ts";
import { header, holdMail, type SmtpSink } from "./support/smtp.ts";
import { runSql } from "./support/sql.ts";
import { backends, freshItem, json, siteUrl, type TestApp } from "./support/test-app.ts";

function editionFile(
  slug: string,
  subject: string,
  body = "Hello **readers**.\n\nA [link](https://example.com/x).",
): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), "ewe-edition-"));
  const file = path.join(dir, `${slug}.md`);
  writeFileSync(file, `---\nsubject: ${subject}\n---\n${body}\n`);
  return file;
}

describe.each(backends)("the newsletter on %s", (backend) => {
  let smtp: SmtpSink;
  let t: TestApp;
  mailingApp(
    backend,
    {
      env: {
        // An address alone: the mails carry the owner's name (content/owner.md, or SITE_OWNER_NAME).
        MAIL_FROM: "news@ewe.test",
        SITE_OWNER_NAME: "Asha Rao",
        SUBSCRIBE_CONFIRMATIONS_PER_IP_PER_HOUR: "3",
      },
    },
    (app) => ({ t, smtp } = app),
  );
  afterEach(() => {
    smtp.answer = () => undefined;
  });

  let ipCounter = 0;
  /** A client address of its own, so the per-IP cap of one test does not touch another. */
  const freshIp = () => `10.0.${backend === "sqlite" ? 1 : 2}.${++ipCounter}`;

  async function subscribeAndReceive(email: string) {
    expect((await requestSubscription(t, email, freshIp())).statusCode).toBe(202);
    await smtp.waitFor(() => smtp.to(email).length > 0);
    return smtp.to(email)[0]!;
  }

  const confirm = (token: string) => t.visitor().post("/api/subscribers/confirm", { token });
  const states = async () =>
    JSON.parse((await admin(adminEnv(t), "subscribers", "list", "--json")).stdout) as {
      email: string;
      status: string;
    }[];
  /** Follows the unsubscribe link of `email`'s copies, as its reader would. */
  const unsubscribeByLink = async (email: string) => {
    const [row] = await runSql(t, "select unsubscribe_token from subscribers where email = ?", [
      email,
    ]);
    return t
      .visitor()
      .post("/api/unsubscribe", { token: t.links.tokenOf(String(row?.unsubscribe_token)) });
  };
  const exported = async () =>
    parseExport((await admin(adminEnv(t), "subscribers", "export")).stdout);

  it("sends one confirmation mail holding only our text and the link; the address is pending", async () => {
    const mail = await subscribeAndReceive("new@example.com");
    expect(mail.to).toEqual(["new@example.com"]);
    expect(header(mail, "From")).toBe("Asha Rao from Engage with Engineer <news@ewe.test>");
    expect(header(mail, "Subject")).toBe("Confirm your subscription to Engage with Engineer");
    expect(header(mail, "Auto-Submitted")).toBe("auto-generated");
    expect(header(mail, "List-Unsubscribe")).toBe("");
    const token = tokenOfMail(mail);
    expect(mail.parsed.text).toContain(`${siteUrl}/newsletter/confirm?token=${token}`);
    expect(mail.parsed.html).toContain(`${siteUrl}/newsletter/confirm?token=${token}`);
    // The address appears in the envelope and To only.
    expect(mail.parsed.text).not.toContain("new@example.com");
    expect(String(mail.parsed.html)).not.toContain("new@example.com");

    expect(await states()).toContainEqual(
      expect.objectContaining({ email: "new@example.com", status: "pending" }),
    );
    expect((await exported()).has("new@example.com")).toBe(false);
  });

  it("confirms by POST only, once; a GET of the link changes nothing", async () => {
    const token = tokenOfMail(await subscribeAndReceive("confirm@example.com"));
    await t.app.inject({ method: "GET", url: `/newsletter/confirm?token=${token}` });
    const state = async (value: string) =>
      json(
        await t.visitor().get(`/api/subscribers/confirm?token=${encodeURIComponent(value)}`),
        confirmStateResponseSchema,
      ).state;
    // What the link can do, read as often as wanted, changes nothing either.
    expect(await state(token)).toBe("pending");
    expect(await state(token)).toBe("pending");
    expect(await states()).toContainEqual(
      expect.objectContaining({ email: "confirm@example.com", status: "pending" }),
    );

    const confirmed = await confirm(token);
    expect(confirmed.statusCode).toBe(200);
    expect(json(confirmed)).toEqual({ confirmed: true });
    expect(await states()).toContainEqual(
      expect.objectContaining({ email: "confirm@example.com", status: "confirmed" }),
    );
    expect((await exported()).has("confirm@example.com")).toBe(true);

    expect(await state(token)).toBe("used");
    expect(await state("x".repeat(43))).toBe("unknown");
    const again = await confirm(token);
    expect(again.statusCode).toBe(410);
    expect(json(again, errorResponseSchema).error).toMatchObject({
      code: "token_used",
      message: "This confirmation link has already been used.",
    });
  });

  it("answers a subscribed address as any other, and tells its mailbox instead, once a day", async () => {
    const email = "on-the-list@example.com";
    await confirm(tokenOfMail(await subscribeAndReceive(email)));
    // The day's confirmation mail is behind it: the next request may mail the mailbox.
    const dayAgo = new Date(Date.now() - 25 * 3_600_000).toISOString();
    await runSql(t, "update subscribers set confirmation_sent_at = ? where email = ?", [
      dayAgo,
      email,
    ]);
    const fresh = await requestSubscription(t, "never-seen@example.com", freshIp());
    const listed = await requestSubscription(t, "On-The-List@example.com", freshIp());
    expect([listed.statusCode, listed.body]).toEqual([fresh.statusCode, fresh.body]);
    expect(listed.statusCode).toBe(202);

    const notice = "You are already subscribed to Engage with Engineer";
    const noticeOf = () => smtp.to(email).find((mail) => header(mail, "Subject") === notice);
    await smtp.waitFor(() => noticeOf() !== undefined);
    expect(noticeOf()?.parsed.text).toContain("there is nothing to do");
    expect(noticeOf()?.parsed.text).not.toMatch(/token=/);
    expect(await states()).toContainEqual(expect.objectContaining({ email, status: "confirmed" }));

    // The form without JavaScript leads to the same page as for a new address.
    const ticket = t.formTicket(email);
    const form = await t.app.inject({
      method: "POST",
      url: `/api/newsletter/continue?ticket=${ticket}`,
      remoteAddress: freshIp(),
      headers: { origin: siteUrl, "content-type": "application/x-www-form-urlencoded" },
      payload: "",
    });
    expect([form.statusCode, form.headers.location]).toEqual([303, "/newsletter/thanks"]);
    // At most one mail a day to the mailbox: the second request queued nothing.
    const rows = await runSql(
      t,
      "select count(*) as n from outbox where kind = 'confirmation' and lower(email) = ?",
      [email],
    );
    expect(Number(rows[0]?.n)).toBe(2);
  });

  it("confirms and unsubscribes without JavaScript, by the page's button posting back to the link", async () => {
    const email = "no-script@example.com";
    const token = tokenOfMail(await subscribeAndReceive(email));
    const post = (url: string, origin = siteUrl) =>
      t.app.inject({
        method: "POST",
        url,
        headers: { origin, "content-type": "application/x-www-form-urlencoded" },
        payload: "",
      });
    const page = (body: string) => body.match(/<h1>([^<]*)<\/h1>/)?.[1];

    const elsewhere = await post(`/newsletter/confirm?token=${token}`, "https://evil.example");
    expect(elsewhere.statusCode).toBe(403);
    expect((await states()).find((row) => row.email === email)?.status).toBe("pending");
    const confirmed = await post(`/newsletter/confirm?token=${token}`);
    expect([confirmed.statusCode, page(confirmed.body)]).toEqual([200, "Subscription confirmed"]);
    expect(confirmed.headers["content-type"]).toMatch(/^text\/html/);
    expect((await states()).find((row) => row.email === email)?.status).toBe("confirmed");
    // A used link says so, rather than asking again.
    const again = await post(`/newsletter/confirm?token=${token}`);
    expect([again.statusCode, page(again.body)]).toEqual([200, "Already confirmed"]);
    const unknown = await post(`/newsletter/confirm?token=${"x".repeat(43)}`);
    expect([unknown.statusCode, page(unknown.body)]).toEqual([404, "This link is not known"]);
    // A link a week old names nothing either: the page says why that may be too.
    expect(unknown.body).toContain(
      "A link more than a week old is forgotten with the address it was sent to: subscribe again",
    );

    const [row] = await runSql(t, "select unsubscribe_token from subscribers where email = ?", [
      email,
    ]);
    const unsubscribe = `/unsubscribe?token=${t.links.tokenOf(String(row?.unsubscribe_token))}`;
    const removed = await post(unsubscribe);
    expect([removed.statusCode, page(removed.body)]).toEqual([200, "Unsubscribed"]);
    expect((await states()).some((row) => row.email === email)).toBe(false);
    // The record of the mails sent to it stays (docs/privacy-requests.md): the page tells the
    // reader what became of the address, and no more.
    expect(await runSql(t, "select kind from outbox where email = ?", [email])).not.toEqual([]);
    expect(removed.body).toContain("no more editions will be sent to this address");
    expect(removed.body).not.toMatch(/forgotten|forgot/);
    // Followed again, it says what is true of its own subscription alone: one made since
    // under the same address has a link of its own.
    const followedAgain = await post(unsubscribe);
    expect(page(followedAgain.body)).toBe("Unsubscribed");
    expect(followedAgain.body).toContain("This link&#39;s subscription had ended already");
    expect(followedAgain.body).not.toContain("no more editions will be sent to this address");
    expect((await post("/unsubscribe?token=nonsense")).statusCode).toBe(404);
  });

  it("without JavaScript asks once about an address that looks mistyped, and takes the one the reader keeps", async () => {
    const post = (fields: Record<string, string>) =>
      t.app.inject({
        method: "POST",
        url: "/api/newsletter",
        remoteAddress: freshIp(),
        headers: { origin: siteUrl, "content-type": "application/x-www-form-urlencoded" },
        payload: new URLSearchParams(fields).toString(),
      });
    const asked = await post({ email: "ravi@hotmial.com" });
    expect(asked.statusCode).toBe(200);
    expect(asked.body).toContain("<h1>Check your address</h1>");
    expect(asked.body).toContain(
      "Did you mean <strong>ravi@hotmail.com</strong>? Correct the address above, or send the form again to keep ravi@hotmial.com.",
    );
    expect(asked.body).toContain('<input type="hidden" name="emailKept" value="ravi@hotmial.com">');
    for (const sent of [
      { email: "ravi@hotmial.com", emailKept: "ravi@hotmial.com" },
      { email: "ravi@hotmail.com", emailKept: "ravi@hotmial.com" },
    ]) {
      const next = await post(sent);
      expect(next.statusCode).toBe(303);
      expect(next.headers.location).toMatch(/^\/newsletter\/continue\?ticket=/);
    }
    // A common domain is not asked about.
    expect((await post({ email: "ravi@gmail.com" })).statusCode).toBe(303);
  });

  it("without JavaScript counts 'One more step' from the first press, through 'Did you mean …?'", async () => {
    const post = (url: string, fields: Record<string, string>) =>
      t.app.inject({
        method: "POST",
        url,
        remoteAddress: freshIp(),
        headers: { origin: siteUrl, "content-type": "application/x-www-form-urlencoded" },
        payload: new URLSearchParams(fields).toString(),
      });
    const pressed = async (firstPress: string | null) => {
      const asked = await post("/api/newsletter", { email: "ravi@hotmial.com" });
      const carried = /name="ticket" value="([^"]+)"/.exec(asked.body)?.[1];
      expect(carried).toBeDefined();
      const kept = { email: "ravi@hotmial.com", emailKept: "ravi@hotmial.com" };
      const next = await post("/api/newsletter", { ...kept, ticket: firstPress ?? carried ?? "" });
      expect(next.headers.location).toMatch(/^\/newsletter\/continue\?ticket=/);
      const ticket = new URL(String(next.headers.location), siteUrl).searchParams.get("ticket");
      return (await post(`/api/newsletter/continue?ticket=${ticket}`, {})).headers.location;
    };
    // The first press a minute before: "Subscribe" on "One more step" is taken at once.
    expect(await pressed(t.formTicket("ravi@hotmial.com"))).toBe("/newsletter/thanks");
    // Pressed all at once from the first, it still waits the form's minimum.
    expect(await pressed(null)).toBe("/newsletter/too-fast");
  });

  it("refuses an expired link, and an unknown or malformed one", async () => {
    const token = tokenOfMail(await subscribeAndReceive("late@example.com"));
    await runSql(t, "update confirmation_tokens set expires_at = ?", [
      new Date(Date.now() - 1000).toISOString(),
    ]);
    const expired = await confirm(token);
    expect(expired.statusCode).toBe(410);
    expect(json(expired, errorResponseSchema).error).toMatchObject({
      code: "token_expired",
      message: "This confirmation link has expired; subscribe again to get a new one.",
    });
    expect(await states()).toContainEqual(
      expect.objectContaining({ email: "late@example.com", status: "pending" }),
    );

    const unknown = await confirm("A".repeat(43));
    expect(unknown.statusCode).toBe(404);
    expect(json(unknown, errorResponseSchema).error).toMatchObject({
      code: "unknown_token",
      message: "This confirmation link is not known; it may have been mistyped.",
    });
    for (const bad of ["", "short", `${"a".repeat(42)}=`]) {
      expect((await confirm(bad)).statusCode).toBe(400);
    }
  });

  it("sends a pending address at most one confirmation mail per 24 hours", async () => {
    const ip = freshIp();
    await subscribeAndReceive("twice@example.com");
    const again = await requestSubscription(t, "twice@example.com", ip);
    expect(again.statusCode).toBe(202);
    await runSql(t, "update subscribers set confirmation_sent_at = ? where email = ?", [
      new Date(Date.now() - 25 * 60 * 60 * 1000).toISOString(),
      "twice@example.com",
    ]);
    expect((await requestSubscription(t, "twice@example.com", ip)).statusCode).toBe(202);
    await smtp.waitFor(() => smtp.to("twice@example.com").length === 2);
    // Both links work until used: the newer mail does not break the older one.
    expect(tokenOfMail(smtp.to("twice@example.com")[1]!)).not.toBe(
      tokenOfMail(smtp.to("twice@example.com")[0]!),
    );
  });

  it("sends one mailbox at most one confirmation mail per 24 hours, however it is spelled, from any network", async () => {
    const mailbox = `mail.bomb.${backend}@gmail.com`;
    const spellings = [
      mailbox,
      mailbox.toUpperCase(),
      `mailbomb${backend}+1@gmail.com`,
      `m.a.i.l.b.o.m.b.${backend}+news@googlemail.com`,
      `MAILBOMB${backend}+2@Gmail.Com`,
    ];
    // Each from a network of its own, so the per-IP cap never applies.
    for (const email of spellings) {
      expect((await requestSubscription(t, email, freshIp())).statusCode).toBe(202);
    }
    // A confirmation is queued with the subscription, so the outbox already holds every one.
    const queued = async () =>
      (
        await runSql(
          t,
          "select email from outbox where kind = 'confirmation' and lower(email) like ? order by id",
          [`%${backend}%mail.com`],
        )
      ).map((row) => row.email);
    expect(await queued()).toEqual([mailbox]);
    // Only the address that was mailed is stored; the others asked for nothing that lasts.
    expect(
      (await states()).filter((s) => s.email.toLowerCase().includes(backend)).map((s) => s.email),
    ).toEqual([mailbox]);
    await smtp.waitFor(() => smtp.to(mailbox).length === 1);

    // A day later, one more, to whichever spelling asks first, though all ask at once.
    await runSql(t, "update subscribers set confirmation_sent_at = ? where email = ?", [
      new Date(Date.now() - 25 * 60 * 60 * 1000).toISOString(),
      mailbox,
    ]);
    const answers = await Promise.all(
      spellings.slice(1).map((email) => requestSubscription(t, email, freshIp())),
    );
    expect(answers.map((answer) => answer.statusCode)).toEqual([202, 202, 202, 202]);
    const [first, second, ...more] = await queued();
    expect([first, more]).toEqual([mailbox, []]);
    expect(spellings.slice(1)).toContain(second);
  });

  it("caps the confirmation mails one IP address causes per hour", async () => {
    const ip = freshIp();
    for (const n of [1, 2, 3]) {
      expect((await requestSubscription(t, `bomb${n}@example.com`, ip)).statusCode).toBe(202);
    }
    const refused = await requestSubscription(t, "bomb4@example.com", ip);
    expect(refused.statusCode).toBe(429);
    expect(json(refused, errorResponseSchema).error.code).toBe("rate_limited");
    expect(refused.headers["retry-after"]).toBe("3600");
    await smtp.waitFor(() => smtp.to("bomb3@example.com").length === 1);
    expect(smtp.to("bomb4@example.com")).toEqual([]);
    expect((await states()).some((s) => s.email === "bomb4@example.com")).toBe(false);
    // Another address is not held back.
    expect((await requestSubscription(t, "bomb4@example.com", freshIp())).statusCode).toBe(202);
  });

  it("counts an IPv6 connection's confirmation mails by its /64, whichever of its addresses asks", async () => {
    const home = `2001:db8:${backend === "sqlite" ? 1 : 2}:9`;
    for (const n of [1, 2, 3]) {
      const answer = await requestSubscription(t, `v6bomb${n}@example.com`, `${home}::${n}`);
      expect(answer.statusCode).toBe(202);
    }
    const refused = await requestSubscription(t, "v6bomb4@example.com", `${home}::4`);
    expect(refused.statusCode).toBe(429);
    expect((await states()).some((s) => s.email === "v6bomb4@example.com")).toBe(false);
    // The confirmations of reply mails asked for under a comment share the cap.
    const postId = freshItem("science");
    const comment = await t
      .visitor({ ip: `${home}::5` })
      .post(`/api/items/science/${postId}/comments`, {
        content: "Does the same hold for silk?",
        userName: "Mallory",
        formToken: t.commentToken(),
        notifyEmail: "v6bomb5@example.com",
      });
    expect(comment.statusCode).toBe(429);
  });

  it.each([
    ["a filled honeypot", { website: "http://spam.example" }, 400, "honeypot_filled"],
    ["no form token", { formToken: "" }, 400, "form_token_invalid"],
    [
      "an altered form token",
      { formToken: `${Date.now() - 9000}.${"A".repeat(43)}` },
      400,
      "form_token_invalid",
    ],
    ["a form sent at once", { fresh: true }, 400, "too_fast"],
  ])("refuses %s with a clear error and sends nothing", async (_case, change, status, code) => {
    const email = `bot-${code}@example.com`;
    const { fresh, ...fields } = change as { fresh?: boolean };
    const formToken = fresh
      ? json(
          await t.app.inject({ method: "GET", url: "/api/newsletter/form-token" }),
          formTokenResponseSchema,
        ).formToken
      : t.formToken();
    const response = await t.app.inject({
      method: "POST",
      url: "/api/subscribers",
      remoteAddress: freshIp(),
      headers: { origin: siteUrl },
      payload: { email, formToken, website: "", ...fields },
    });
    expect(response.statusCode).toBe(status);
    expect(json(response, errorResponseSchema).error.code).toBe(code);
    expect((await states()).some((s) => s.email === email)).toBe(false);
  });

  it("sends an edition to exactly the confirmed subscribers, each with their own unsubscribe headers", async () => {
    const readers = ["ed1@example.com", "ed2@example.com", "ed3@example.com"];
    for (const email of readers) {
      expect((await confirm(tokenOfMail(await subscribeAndReceive(email)))).statusCode).toBe(200);
    }
    await subscribeAndReceive("ed-pending@example.com");
    const links = await exported();

    const file = editionFile("2026-06-engines", "Engines in June");
    const preview = await admin(adminEnv(t), "newsletter", "preview", file);
    expect(preview.code).toBe(0);
    const sent = await admin(adminEnv(t), "newsletter", "send", file, "--yes");
    expect(sent.code).toBe(0);
    expect(sent.stdout).toMatch(/Queued 2026-06-engines \("Engines in June"\) for \d+ subscribers/);

    const editionsTo = (email: string) =>
      smtp.to(email).filter((m) => header(m, "Subject") === "Engines in June");
    await smtp.waitFor(() => readers.every((email) => editionsTo(email).length === 1));
    expect(editionsTo("ed-pending@example.com")).toEqual([]);
    for (const email of readers) {
      const [mail] = editionsTo(email);
      const token = new URL(links.get(email)!.url).searchParams.get("token")!;
      expect(header(mail!, "List-Unsubscribe")).toBe(
        `<${siteUrl}/api/newsletter/one-click?token=${token}>`,
      );
      expect(header(mail!, "List-Unsubscribe-Post")).toBe("List-Unsubscribe=One-Click");
      // Readers who answer an edition write to the owner, not to the sending address.
      expect(mail!.parsed.replyTo?.value[0]?.address).toBe("contact@example.com");
      expect(mail!.parsed.html).toContain(`${siteUrl}/unsubscribe?token=${token}`);
      expect(mail!.parsed.html).toContain("<strong>readers</strong>");
      expect(mail!.parsed.text).toContain(`Unsubscribe: ${siteUrl}/unsubscribe?token=${token}`);
      // The footer follows the signature line ("-- ", RFC 3676), which mail programs leave
      // out of a reply's quote: a reader answering the edition does not mail their link on.
      expect(mail!.parsed.text).toMatch(
        /\n-- \nYou receive this because you subscribed on Engage with Engineer\.\nUnsubscribe: \S+\n$/,
      );
    }

    // Sending the same file again reaches nobody twice.
    expect((await admin(adminEnv(t), "newsletter", "send", file, "--yes")).stdout).toContain(
      "for 0 subscribers",
    );
    await expect
      .poll(async () => {
        const status = JSON.parse(
          (await admin(adminEnv(t), "newsletter", "status", "--json")).stdout,
        );
        return status.editions.find((e: { slug: string }) => e.slug === "2026-06-engines");
      })
      .toMatchObject({ queued: 0, failed: 0 });

    // One click in the mail program: a POST from anywhere, no cookie, no page.
    const unsubscribeUrl = header(editionsTo("ed1@example.com")[0]!, "List-Unsubscribe").slice(
      1,
      -1,
    );
    const peek = await t.app.inject({ method: "GET", url: unsubscribeUrl.slice(siteUrl.length) });
    expect(peek.statusCode).toBe(303);
    expect(peek.headers.location).toMatch(/^\/unsubscribe\?token=/);
    expect((await exported()).has("ed1@example.com")).toBe(true);
    const oneClick = await t.app.inject({
      method: "POST",
      url: unsubscribeUrl.slice(siteUrl.length),
      headers: {
        origin: "https://mail.provider.example",
        "content-type": "application/x-www-form-urlencoded",
      },
      payload: "List-Unsubscribe=One-Click",
    });
    expect(oneClick.statusCode).toBe(200);
    expect(oneClick.headers["set-cookie"]).toBeUndefined();
    expect((await exported()).has("ed1@example.com")).toBe(false);
    const wrongBody = await t.app.inject({
      method: "POST",
      url: unsubscribeUrl.slice(siteUrl.length),
      headers: { "content-type": "application/x-www-form-urlencoded" },
      payload: "something=else",
    });
    expect(wrongBody.statusCode).toBe(400);
  });

  it("ends a subscription made since by the one-click button of an edition mailed before it, and says so on the link's page", async () => {
    const email = "back.again@example.com";
    const { seedConfirmed } = await import("./support/sql.ts");
    // Subscribed again: a confirmation mail a day at most, so confirmed as by its link.
    const subscribe = () => seedConfirmed(t, [email]);
    expect((await confirm(tokenOfMail(await subscribeAndReceive(email)))).statusCode).toBe(200);
    const sent = await admin(
      adminEnv(t),
      "newsletter",
      "send",
      editionFile("2026-08-old-button", "Old button"),
      "--yes",
    );
    expect(sent.code).toBe(0);
    const copy = () => smtp.to(email).find((m) => header(m, "Subject") === "Old button");
    await smtp.waitFor(() => copy() !== undefined);
    const oldButton = header(copy()!, "List-Unsubscribe").slice(1, -1).slice(siteUrl.length);
    const oldPage = `/unsubscribe?token=${new URL(oldButton, siteUrl).searchParams.get("token")}`;
    // The reader leaves by the link, then subscribes again: a new subscription, a new link.
    expect((await unsubscribeByLink(email)).statusCode).toBe(200);
    await subscribe();
    expect((await exported()).has(email)).toBe(true);

    // Their mail program's button on the old edition: the newsletter stops, as it says.
    const pressed = await t.app.inject({
      method: "POST",
      url: oldButton,
      headers: {
        origin: "https://mail.provider.example",
        "content-type": "application/x-www-form-urlencoded",
      },
      payload: "List-Unsubscribe=One-Click",
    });
    expect([pressed.statusCode, json(pressed)]).toEqual([200, { unsubscribed: true }]);
    expect((await exported()).has(email)).toBe(false);
    expect((await states()).some((row) => row.email === email)).toBe(false);

    // The old link's page without JavaScript, once subscribed again: it ends that too.
    await subscribe();
    const page = (body: string) => body.match(/<h1>([^<]*)<\/h1>/)?.[1];
    const post = () =>
      t.app.inject({
        method: "POST",
        url: oldPage,
        headers: { origin: siteUrl, "content-type": "application/x-www-form-urlencoded" },
        payload: "",
      });
    const removed = await post();
    expect([removed.statusCode, page(removed.body)]).toEqual([200, "Unsubscribed"]);
    expect(removed.body).toContain("no more editions will be sent to this address");
    expect((await states()).some((row) => row.email === email)).toBe(false);
    // Followed once more, nothing is subscribed: it says so, and nothing it cannot know.
    const again = await post();
    expect(page(again.body)).toBe("Unsubscribed");
    expect(again.body).toContain("This link&#39;s subscription had ended already");
    expect(again.body).not.toContain("no more editions will be sent to this address");
  });

  it("retries a 4xx answer and marks a 5xx answer failed with the server's words", async () => {
    const answered = new Map<string, number>();
    smtp.answer = (to) => {
      const [rcpt = ""] = to;
      const seen = (answered.get(rcpt) ?? 0) + 1;
      answered.set(rcpt, seen);
      if (rcpt === "busy@example.com" && seen <= 2)
        return { code: 451, message: "Try again later" };
      if (rcpt === "gone@example.com" && to.length === 1)
        return { code: 550, message: "No such user here" };
      return undefined;
    };
    const { seedConfirmed } = await import("./support/sql.ts");
    await seedConfirmed(t, ["busy@example.com", "gone@example.com"]);
    const sent = await admin(
      adminEnv(t),
      "newsletter",
      "send",
      editionFile("2026-07-faults", "Faults"),
      "--yes",
    );
    expect(sent.code).toBe(0);
    await smtp.waitFor(() =>
      smtp.to("busy@example.com").some((m) => header(m, "Subject") === "Faults"),
    );
    expect(answered.get("busy@example.com")).toBe(3);
    await expect
      .poll(async () => {
        const status = JSON.parse(
          (await admin(adminEnv(t), "newsletter", "status", "--json")).stdout,
        );
        return status.editions.find((e: { slug: string }) => e.slug === "2026-07-faults");
      })
      .toMatchObject({ failed: 1, queued: 0 });
    const status = await admin(adminEnv(t), "newsletter", "status");
    expect(status.stdout).toMatch(/2026-07-faults\tgone@example.com\t.*550.*No such user here/);
  });

  it("sends an edition once to an address that left and came back in other capitals", async () => {
    const before = "Case.Reader@example.net";
    const { seedConfirmed } = await import("./support/sql.ts");
    await seedConfirmed(t, [before]);
    const file = editionFile("2026-10-once-in-any-case", "Once in any case");
    expect((await admin(adminEnv(t), "newsletter", "send", file, "--yes")).code).toBe(0);
    await smtp.waitFor(() => smtp.to(before).length === 1);
    expect((await unsubscribeByLink(before)).statusCode).toBe(200);
    await seedConfirmed(t, ["case.reader@example.net"]);

    // The same file sent again (a crash half way, a second instance): nobody has it twice.
    const again = await admin(adminEnv(t), "newsletter", "send", file, "--yes");
    expect(again.stdout).toContain("for 0 subscribers");
    expect(
      await runSql(t, "select email from outbox where kind = 'edition' and lower(email) = ?", [
        "case.reader@example.net",
      ]),
    ).toEqual([{ email: before }]);
  });

  it("carries an edition's line of any length whole, through an SMTP server's 998-character limit", async () => {
    const reader = `long-lines@${backend}.example.net`;
    const { seedConfirmed } = await import("./support/sql.ts");
    await seedConfirmed(t, [reader]);
    const word = "0123456789".repeat(600);
    const file = editionFile("2026-09-long-lines", "Long lines", `A word: ${word}\n\nThe end.`);
    expect((await admin(adminEnv(t), "newsletter", "send", file, "--yes")).code).toBe(0);
    await smtp.waitFor(() => smtp.to(reader).length === 1);
    const [mail] = smtp.to(reader);
    expect(mail!.parsed.text).toContain(word);
    expect(mail!.parsed.html).toContain(`<p>A word: ${word}</p>`);
  });

  it("sends nothing to a subscriber who unsubscribes while the edition is going out", async () => {
    const list = Array.from({ length: 20 }, (_, i) => `during${i}@example.net`);
    const { seedConfirmed } = await import("./support/sql.ts");
    await seedConfirmed(t, list);
    const last = list.at(-1)!;
    // The SMTP server holds every message: the first few are in flight, the rest wait their turn.
    const { arrived, release } = holdMail(smtp);
    const file = editionFile("2026-08-while-sending", "While sending");
    expect((await admin(adminEnv(t), "newsletter", "send", file, "--yes")).code).toBe(0);
    await expect.poll(arrived).toBeGreaterThan(0);
    expect((await unsubscribeByLink(last)).statusCode).toBe(200);
    release();

    const copies = (email: string) =>
      smtp.to(email).filter((m) => header(m, "Subject") === "While sending");
    await smtp.waitFor(() => list.slice(0, -1).every((email) => copies(email).length === 1));
    await expect
      .poll(async () =>
        runSql(t, "select status, last_error from outbox where kind = 'edition' and email = ?", [
          last,
        ]),
      )
      .toEqual([{ status: "cancelled", last_error: "unsubscribed before sending" }]);
    expect(copies(last)).toEqual([]);
  });
});
