import { describe, expect, it } from "vitest";
import { createFormTokens } from "../../server/lib/form-token.ts";
import { mailingApp } from "./support/mailing-app.ts";
import type { ReceivedMail, SmtpSink } from "./support/smtp.ts";
import { backends, freshItem, siteUrl, type TestApp } from "./support/test-app.ts";

/*
 * Every link in a mail is on SITE_URL (docs/mail.md): a request that names
 * another host, in Host or in the headers a trusted proxy adds, changes no
 * link of the mail it causes.
 */

const cookieSecret = "mail-links-tests-cookie-secret-0123456789abcdef";
const enquiryTokens = createFormTokens(cookieSecret, {
  purpose: "enquiry form timing",
  minimumMs: 0,
});

/** Headers that name another site, as a proxy trusted with TRUST_PROXY would pass them on. */
const elsewhere = {
  host: "evil.example",
  "x-forwarded-host": "evil.example",
  "x-forwarded-proto": "https",
  forwarded: "host=evil.example;proto=https",
};

/** Every address a mail links to, in its HTML and its text. */
function linksOf(mail: ReceivedMail): string[] {
  const html = [...String(mail.parsed.html || "").matchAll(/href="([^"]+)"/g)].map((m) => m[1]);
  const text = [...String(mail.parsed.text ?? "").matchAll(/https?:\/\/[^\s)>\]]+/g)].map(
    (m) => m[0],
  );
  const headers = [
    ...String(mail.parsed.headers.get("list-unsubscribe") ?? "").matchAll(/<([^>]+)>/g),
  ].map((m) => m[1]);
  return [...html, ...text, ...headers].filter((link): link is string => link !== undefined);
}

describe.each(backends)("links in mails on %s", (backend) => {
  let t: TestApp;
  let smtp: SmtpSink;

  mailingApp(
    backend,
    {
      env: {
        COOKIE_SECRET: cookieSecret,
        OWNER_EMAIL: "owner@example.com",
        TRUST_PROXY: "loopback",
      },
      // The built pages the confirmation's and an edition's links open.
      clientFiles: {
        "newsletter/confirm/index.html": "<!doctype html><title>Confirm</title>",
        "unsubscribe/index.html": "<!doctype html><title>Unsubscribe</title>",
      },
    },
    (app) => ({ t, smtp } = app),
  );

  it("lead to SITE_URL whatever host the request names", async () => {
    const inject = (url: string, payload: object) =>
      t.app.inject({
        method: "POST",
        url,
        remoteAddress: "127.0.0.1",
        headers: { ...elsewhere, origin: siteUrl },
        payload,
      });
    const subscriber = `links.${backend}@example.org`;
    const enquirer = `links-enquiry.${backend}@example.org`;
    const watcher = `links-replies.${backend}@example.org`;
    const answers = [
      await inject("/api/subscribers", {
        email: subscriber,
        formToken: t.formToken(),
        website: "",
      }),
      await inject("/api/enquiries", {
        name: "Priya Raman",
        email: enquirer,
        service: "dfmea",
        message: "We need a DFMEA workshop for a fuel pump module in March, for six engineers.",
        formToken: enquiryTokens.issue(Date.now() - 60_000),
      }),
      await inject(`/api/items/science/${freshItem("science")}/comments`, {
        content: "How long does a lithium cell keep its charge on a shelf?",
        userName: "Asha",
        formToken: t.commentToken(),
        notifyEmail: watcher,
      }),
    ];
    expect(answers.map((answer) => answer.statusCode)).toEqual([202, 201, 201]);
    const recipients = [subscriber, enquirer, watcher, "owner@example.com"];
    await smtp.waitFor(() => recipients.every((to) => smtp.to(to).length > 0));
    const links = recipients.flatMap((to) => smtp.to(to).flatMap(linksOf));
    expect(links.length).toBeGreaterThan(6);
    for (const link of links) expect(link.startsWith(`${siteUrl}/`), link).toBe(true);
  });

  it("open pages that keep their token out of Referer, and leave other pages' rule as it is", async () => {
    const subscriber = `referrer.${backend}@example.org`;
    const enquirer = `referrer-enquiry.${backend}@example.org`;
    const post = (url: string, payload: object) =>
      t.app.inject({ method: "POST", url, headers: { origin: siteUrl }, payload });
    await post("/api/subscribers", { email: subscriber, formToken: t.formToken(), website: "" });
    await post("/api/enquiries", {
      name: "Priya Raman",
      email: enquirer,
      service: "dfmea",
      message: "We need a DFMEA workshop for a fuel pump module in March, for six engineers.",
      formToken: enquiryTokens.issue(Date.now() - 60_000),
    });
    await smtp.waitFor(() => [subscriber, enquirer].every((to) => smtp.to(to).length > 0));
    const tokened = [subscriber, enquirer]
      .flatMap((to) => smtp.to(to).flatMap(linksOf))
      .filter((link) => link.includes("token="));
    expect(tokened.length).toBeGreaterThanOrEqual(2);
    for (const link of tokened) {
      const page = await t.app.inject({ method: "GET", url: link.replace(siteUrl, "") });
      expect(page.statusCode, link).toBe(200);
      // Its button's POST still carries the page's origin: not `no-referrer`.
      expect(page.headers["referrer-policy"], link).toBe("strict-origin");
    }
    const home = await t.app.inject({ method: "GET", url: "/" });
    expect(home.headers["referrer-policy"]).toBe("strict-origin-when-cross-origin");
  });
});
