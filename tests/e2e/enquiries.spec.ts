import type { Page } from "@playwright/test";
import { formTokenResponseSchema } from "../../contract/api.ts";
import { type SmtpSink, startSmtpSink } from "../server/support/smtp.ts";
import { seriousViolations } from "./support/axe.ts";
import { expect, type OpenVisitor, test } from "./support/fixtures.ts";
import { type OwnSite, ownerPage, startOwnSite } from "./support/own-site.ts";
import { siteEnv } from "./support/site.ts";

/*
 * Enquiries as a new reader and the owner meet them (docs/product.md,
 * "Enquiries"): the form on /services in Chromium, with JavaScript and
 * without, on a site of this spec's own that mails through a real SMTP
 * server on loopback.
 */

const owner = "owner@example.com";
const message =
  "We need a DFMEA for a new fuel pump module before the design freeze in March; six engineers would attend.";

// One server (and one owner's sign-in) for the file's tests, in one worker, in
// order: split across two workers, each would start its own
// (docs/decisions/028-how-the-suite-stays-fast.md). A failure does not skip the others.
test.describe.configure({ mode: "default" });
// The reader's browser is in Pune: the acknowledgement gives the time by their clock.
test.use({ timezoneId: "Asia/Kolkata" });

let smtp: SmtpSink;
let site: OwnSite;

test.beforeAll(async () => {
  smtp = await startSmtpSink();
  site = await startOwnSite("enquiries", {
    env: {
      SMTP_URL: smtp.url,
      OWNER_EMAIL: owner,
      MAIL_RATE_PER_MINUTE: "0",
      COMMENT_MIN_SECONDS: siteEnv.COMMENT_MIN_SECONDS,
    },
  });
});
test.afterAll(async () => {
  await site?.stop();
  await smtp?.close();
});

async function fillForm(page: Page, email: string) {
  const form = page.locator("#send-enquiry");
  await form.getByRole("textbox", { name: "Your name" }).fill("Priya Raman");
  await form.getByRole("textbox", { name: "Your email" }).fill(email);
  await form.getByRole("textbox", { name: "Message" }).fill(message);
}

/** The owner, signed in (`ownerPage`), finds the enquiry from `email` on the console's Enquiries screen. */
async function expectInConsole(visitor: OpenVisitor, email: string, serviceTitle: string) {
  const page = await ownerPage(visitor, site, "/admin/enquiries");
  await expect(page.getByRole("heading", { name: "Enquiries", level: 1 })).toBeVisible();
  await page.getByRole("searchbox", { name: "Search enquiries" }).fill(email);
  const card = page.getByRole("article", { name: "Enquiry from Priya Raman" });
  await expect(card).toHaveCount(1);
  await expect(card).toContainText(email);
  await expect(card).toContainText(serviceTitle);
  await expect(card).toContainText(message);
}

test("a reader asks about a service in place, and the owner and the reader are mailed", async ({
  page,
  visitor,
}) => {
  const email = "priya.js@example.org";
  await page.goto(`${site.siteUrl}/services`);
  const heading = page.getByRole("heading", { name: "Send an enquiry" });
  await expect(heading).toBeVisible();
  const service = page.getByRole("combobox", { name: "Service" });
  const options = await service.locator("option").allTextContents();
  expect(options.slice(1)).toEqual([
    "Mechanical Design",
    "IC Engine Projects",
    "EV and Fuel Cell Projects",
    "DFMEA",
    "Tolerance Stack-ups",
    "Build Chatbots",
    "Build Voicebots",
    "VBA Tools",
    "Technical Training",
    "Something else",
  ]);

  // The card's link chooses its service in place once the form is live, which it
  // is from the reader's first move on the page; a click before that opens the
  // service's own page (the test without JavaScript below).
  const ask = page
    .getByRole("listitem")
    .filter({ has: page.getByRole("heading", { name: "DFMEA" }) })
    .getByRole("link", { name: "Ask about this service" });
  await ask.hover();
  await expect(page.locator("#send-enquiry astro-island")).not.toHaveAttribute("ssr", {
    timeout: 15_000,
  });
  await ask.click();
  await expect(service).toHaveValue("dfmea");
  await expect(page).toHaveURL(`${site.siteUrl}/services?service=dfmea#send-enquiry`);
  await fillForm(page, email);
  expect(await seriousViolations(page, "#send-enquiry")).toEqual([]);

  await page.getByRole("button", { name: "Send enquiry" }).click();
  await expect(page.getByRole("status")).toContainText("Thank you, Priya Raman!");
  // The promise is the acknowledgement's (answerWithin in contract/enquiries.ts).
  await expect(page.getByRole("status")).toContainText("within two working days.");
  // The acknowledgement's limit as the server keeps it (acknowledgementIntervalMs), eight hours.
  await expect(page.getByRole("status")).toContainText("(at most one in eight hours)");
  // A call may be quicker: the acknowledgement leads to the booking page, the service chosen.
  await expect(page.getByRole("status").getByRole("link", { name: "Book a call" })).toHaveAttribute(
    "href",
    "/book?service=dfmea",
  );
  // Another: the button pressed gives way to the form, and the focus to its first field.
  await page.getByRole("button", { name: "Send another enquiry" }).click();
  await expect(
    page.locator("#send-enquiry").getByRole("textbox", { name: "Your name" }),
  ).toBeFocused();

  await smtp.waitFor(() => smtp.to(owner).length > 0 && smtp.to(email).length > 0);
  const notice = smtp.to(owner)[0];
  expect(notice?.parsed.subject).toBe("Enquiry: DFMEA, from Priya Raman");
  expect(notice?.parsed.replyTo?.value).toEqual([{ name: "Priya Raman", address: email }]);
  expect(notice?.parsed.text).toContain(message);
  // The acknowledgement names the service and repeats nothing the sender typed.
  const ack = smtp.to(email)[0]?.parsed.text;
  expect(ack).toContain("Service: DFMEA");
  expect(ack).toContain(
    `Book a call at a time that suits you:\n${site.siteUrl}/book?service=dfmea`,
  );
  expect(ack).not.toContain(message);
  expect(ack).toMatch(/Sent: \w+day \d+ \w+ \d{4}, \d\d:\d\d \(Asia \/ Kolkata, GMT\+5:30\)/);

  await expectInConsole(visitor, email, "DFMEA");
});

test("on a phone, the thanks name a long address within the screen", async ({ page }) => {
  await page.setViewportSize({ width: 375, height: 740 });
  await page.goto(`${site.siteUrl}/services`);
  const form = page.locator("#send-enquiry");
  await form.getByRole("textbox", { name: "Your name" }).hover();
  await expect(form.locator("astro-island")).not.toHaveAttribute("ssr", { timeout: 15_000 });
  // A work address with no hyphen: its dots and "@" are no place to break a line.
  const email = "priya.raman.procurement@ramanmotorsinternational.co.uk";
  await fillForm(page, email);
  await page.getByRole("combobox", { name: "Service" }).selectOption("dfmea");
  await page.getByRole("button", { name: "Send enquiry" }).click();
  const thanks = page.getByRole("status").filter({ hasText: "Thank you, Priya Raman!" });
  await expect(thanks).toContainText(email);
  expect(await thanks.evaluate((box) => box.scrollWidth - box.clientWidth)).toBe(0);
  expect(
    await page.evaluate(
      () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
    ),
  ).toBe(0);
});

test("without JavaScript a card's link chooses its service, the form posts, shows the enquiry back, and ends on a thank-you page", async ({
  page: scripted,
  visitor,
}) => {
  const email = "priya.nojs@example.org";
  const page = await visitor({ javaScriptEnabled: false });
  await page.goto(`${site.siteUrl}/services`);
  await page
    .getByRole("listitem")
    .filter({ has: page.getByRole("heading", { name: "VBA Tools" }) })
    .getByRole("link", { name: "Ask about this service" })
    .click();
  await expect(page).toHaveURL(`${site.siteUrl}/services/ask/vba-tools`);
  await expect(page.getByRole("heading", { name: "Ask about VBA Tools", level: 1 })).toBeVisible();
  await expect(page.getByRole("heading", { name: "Send an enquiry" })).toBeVisible();
  await expect(page.getByRole("combobox", { name: "Service" })).toHaveValue("vba-tools");
  // The same page with scripts: the hydrated form keeps the choice, and axe finds nothing.
  await scripted.goto(`${site.siteUrl}/services/ask/vba-tools`);
  await expect(scripted.getByRole("combobox", { name: "Service" })).toHaveValue("vba-tools");
  expect(await seriousViolations(scripted)).toEqual([]);
  await fillForm(page, email);
  await page.getByRole("button", { name: "Send enquiry" }).click();
  await expect(page.getByRole("heading", { name: "Check your enquiry" })).toBeVisible();
  await expect(page.getByText(message)).toBeVisible();
  await expect(page.getByRole("definition").filter({ hasText: "VBA Tools" })).toBeVisible();
  // The second press counts only once a person could have read the page.
  await expect(async () => {
    await page.getByRole("button", { name: "Send enquiry" }).click();
    await expect(page.getByRole("heading", { name: "Thank you" })).toBeVisible({ timeout: 2000 });
  }).toPass({ timeout: 30_000 });
  await expect(page).toHaveURL(`${site.siteUrl}/services/enquiry-sent`);
  await expect(page.getByRole("status")).toContainText(
    "at the address you gave within two working days. An acknowledgement goes there too (at most one in eight hours).",
  );
  await expect(page.getByRole("link", { name: "Book a call" })).toHaveAttribute("href", "/book");
  // Without JavaScript /book lists the engineer's zone until the reader picks theirs.
  const bookLine = page.getByText("Would a conversation be quicker?");
  await expect(bookLine).toHaveText(
    "Would a conversation be quicker? Book a call at a time that suits you, in the time zone you choose.",
  );
  await page.getByRole("link", { name: "Book a call" }).click();
  await expect(page.getByRole("combobox", { name: "Time zone" })).toBeVisible();
  await page.goBack();
  // Back from the thank-you page: the enquiry checked, as it was; sent again, it says it went.
  await page.goBack();
  await expect(page.getByRole("heading", { name: "Check your enquiry" })).toBeVisible();
  await page.getByRole("button", { name: "Send enquiry" }).click();
  await expect(page.getByRole("alert")).toHaveText(
    "This enquiry was sent already: the engineer has it. Press Send enquiry only to send a second copy.",
  );
  // The owner's notice and the acknowledgement leave the outbox in either order.
  await smtp.waitFor(
    () =>
      smtp.to(email).length > 0 &&
      smtp.to(owner).some((mail) => mail.parsed.replyTo?.value[0]?.address === email),
  );
  const notice = smtp.to(owner).find((mail) => mail.parsed.replyTo?.value[0]?.address === email);
  expect(notice?.parsed.subject).toBe("Enquiry: VBA Tools, from Priya Raman");
  // Without JavaScript the browser gave no zone: the time is in UTC, and says so.
  expect(smtp.to(email)[0]?.parsed.text).toMatch(/Sent: \w+day \d+ \w+ \d{4}, \d\d:\d\d \(UTC\)/);

  await expectInConsole(visitor, email, "VBA Tools");
});

test('an address whose domain looks mistyped is met with "Did you mean …?", which puts the address in the field', async ({
  page,
}) => {
  await page.goto(`${site.siteUrl}/services`);
  const form = page.locator("#send-enquiry");
  await form.scrollIntoViewIfNeeded();
  await expect(form.locator("astro-island")).not.toHaveAttribute("ssr", { timeout: 15_000 });
  const email = form.getByRole("textbox", { name: "Your email" });
  await email.fill("priya@outlok.com");
  await expect(form.getByText("Did you mean")).toHaveCount(0);
  // Said once the reader leaves the field, politely: a live region, not an alert.
  await email.press("Tab");
  const said = form.getByText("Did you mean priya@outlook.com?");
  await expect(said).toBeVisible();
  await expect(said).toHaveAttribute("aria-live", "polite");
  await form.getByRole("button", { name: "priya@outlook.com" }).click();
  await expect(email).toHaveValue("priya@outlook.com");
  await expect(email).toBeFocused();
  await expect(form.getByText("Did you mean")).toHaveCount(0);
  // An address kept as typed is never refused: the suggestion only speaks.
  await email.fill("priya@outlok.com");
  await email.press("Tab");
  await expect(said).toBeVisible();
  await expect(email).not.toHaveAttribute("aria-invalid", "true");
});

test("a message too short is refused with a clear message beside its field, and nothing is sent", async ({
  page,
}) => {
  const email = "priya.short@example.org";
  await page.goto(`${site.siteUrl}/services`);
  const form = page.locator("#send-enquiry");
  // The live form says it in a summary; before it hydrates, the server's page lists each field's message.
  await form.scrollIntoViewIfNeeded();
  await expect(form.locator("astro-island")).not.toHaveAttribute("ssr", { timeout: 15_000 });
  await form.getByRole("textbox", { name: "Your name" }).fill("Priya Raman");
  await form.getByRole("textbox", { name: "Your email" }).fill(email);
  await page.getByRole("combobox", { name: "Service" }).selectOption("dfmea");
  const field = form.getByRole("textbox", { name: "Message" });
  await field.fill("Too short");
  // The browser's own check holds it first; past it, the server's message shows by the field.
  await field.evaluate((element) => element.removeAttribute("minlength"));
  await page.getByRole("button", { name: "Send enquiry" }).click();
  await expect(page.getByRole("alert")).toHaveText("Please correct the fields marked below.");
  await expect(field).toHaveAccessibleDescription(/Write at least 20 characters/);
  await expect(field).toHaveAttribute("aria-invalid", "true");
  // The button, disabled while sending, lost the focus: the field to correct has it.
  await expect(field).toBeFocused();
  expect(smtp.to(email)).toEqual([]);
});

test("without JavaScript a refused enquiry comes back as the form, as typed, each message beside its field", async ({
  visitor,
}) => {
  const email = "priya.nojs-short@example.org";
  const page = await visitor({ javaScriptEnabled: false });
  // The posts the server has had: this spec's earlier tests' too (each answered before
  // this page opens), and this page's, which its log, read through a pipe, may hold later.
  const posts = () =>
    site.logs.filter((line) => line.req?.method === "POST" && line.req.url === "/services/enquiry");
  await page.goto(`${site.siteUrl}/services/ask/dfmea`);
  const earlier = posts().length;
  const form = page.locator("#send-enquiry");
  const hostile = '<script>alert("x")</script> & "quoted"';
  const typed = {
    "Your name": `Priya ${hostile}`,
    "Your email": email,
    "Organisation (optional)": `Raman ${hostile}`,
    "Timeline (optional)": `March ${hostile}`,
    Message: hostile.slice(0, 15),
  };
  for (const [name, value] of Object.entries(typed)) {
    await form.getByRole("textbox", { name, exact: true }).fill(value);
  }
  // Past the browser's own check, the server's.
  await form
    .getByRole("textbox", { name: "Message" })
    .evaluate((element) => element.removeAttribute("minlength"));
  await page.getByRole("button", { name: "Send enquiry" }).click();
  await expect(
    page.getByRole("heading", { name: "Your enquiry was not sent", level: 1 }),
  ).toBeVisible();
  await expect(page.getByRole("alert")).toContainText("at least 20 characters");
  // The form again, as typed: the refused field marked, saying why, focused.
  for (const [name, value] of Object.entries(typed)) {
    await expect(page.getByRole("textbox", { name, exact: true })).toHaveValue(value);
  }
  await expect(page.getByRole("combobox", { name: "Service" })).toHaveValue("dfmea");
  const message = page.getByRole("textbox", { name: "Message" });
  await expect(message).toBeFocused();
  await expect(message).toHaveAttribute("aria-invalid", "true");
  await expect(message).toHaveAccessibleDescription(/^Write at least 20 characters/);
  // axe runs in a page with scripts, on the same markup: the refusal's page has none of its own.
  const scripted = await visitor();
  await scripted.setContent(await page.content());
  expect(await seriousViolations(scripted)).toEqual([]);
  // Corrected and sent, it is shown back; "Change the enquiry" brings the form back, no Back needed.
  await message.fill(`${typed.Message} and enough words now`);
  await page.getByRole("button", { name: "Send enquiry" }).click();
  await expect(page.getByRole("heading", { name: "Check your enquiry" })).toBeVisible();
  // Back works too: the refusal as it was, from the browser's own history, nothing posted again.
  // Two of this page's: the refused form and the review.
  await site.waitForLog(() => posts().length >= earlier + 2);
  const before = posts().length;
  await page.goBack();
  await expect(
    page.getByRole("heading", { name: "Your enquiry was not sent", level: 1 }),
  ).toBeVisible();
  await expect(page.getByRole("textbox", { name: "Your name", exact: true })).toHaveValue(
    typed["Your name"],
  );
  await page.goForward();
  await expect(page.getByRole("heading", { name: "Check your enquiry" })).toBeVisible();
  await page.getByRole("button", { name: "Change the enquiry" }).click();
  await expect(page.getByRole("heading", { name: "Change your enquiry", level: 1 })).toBeVisible();
  // The log has each post in turn: this one is the first since the review.
  await site.waitForLog(() => posts().length > before);
  expect(posts().length).toBe(before + 1);
  await expect(page.getByRole("textbox", { name: "Timeline (optional)" })).toHaveValue(
    typed["Timeline (optional)"],
  );
  expect(smtp.to(email)).toEqual([]);
});

test("the owner reads the enquiry in the console and answers it, threaded under the acknowledgement", async ({
  visitor,
  request,
}) => {
  const email = "asha.console@example.org";
  const { formToken } = formTokenResponseSchema.parse(
    await (await request.get(`${site.siteUrl}/api/enquiries/form-token`)).json(),
  );
  // Sent as the form sends it, once the form's second has passed.
  await expect(async () => {
    const response = await request.post(`${site.siteUrl}/api/enquiries`, {
      headers: { origin: site.siteUrl },
      data: {
        name: "Asha Kulkarni",
        email,
        service: "tolerance-stackups",
        message: "Our gearbox housing stack-up fails at the bearing bore; can you review it?",
        formToken,
      },
    });
    expect(response.status()).toBe(201);
  }).toPass({ timeout: 20_000 });
  await smtp.waitFor(() => smtp.to(email).length === 1);
  const ack = smtp.to(email)[0];

  const page = await ownerPage(visitor, site);
  await page
    .getByRole("navigation", { name: "Console" })
    .getByRole("link", { name: "Enquiries" })
    .click();
  await expect(page.getByRole("heading", { name: "Enquiries", level: 1 })).toBeVisible();
  await page.getByRole("searchbox", { name: "Search enquiries" }).fill("gearbox");
  // The cards are a list's items: a screen reader tells how many and moves between them.
  const listed = page.getByRole("list", { name: "Enquiries, newest first" }).getByRole("listitem");
  await expect(listed).toHaveCount(1);
  const card = listed.getByRole("article", { name: "Enquiry from Asha Kulkarni" });
  await expect(card).toContainText("Our gearbox housing stack-up fails at the bearing bore");
  await expect(card).toContainText("Tolerance Stack-ups");
  expect(await seriousViolations(page)).toEqual([]);

  // An answer the server refuses (a text-direction character) is marked, in its words.
  const answerField = card.getByRole("textbox", { name: "Answer Asha Kulkarni by mail" });
  await answerField.fill("Yes: \u202Esend the drawing.");
  await card.getByRole("button", { name: "Send answer" }).click();
  await expect(answerField).toBeFocused();
  await expect(answerField).toHaveAttribute("aria-invalid", "true");
  await expect(answerField).toHaveAccessibleDescription(
    "The answer cannot contain control or text-direction characters.",
  );
  await expect(card).not.toContainText("body.");
  await answerField.fill(
    "Yes: send me the drawing and the tolerance table, and I will review it this week.",
  );
  await expect(answerField).not.toHaveAttribute("aria-invalid");
  await card.getByRole("button", { name: "Send answer" }).click();
  await expect(card).toContainText("Answered");
  // Send answer stays disabled until more is written: the focus goes back to the field.
  await expect(card.getByRole("textbox", { name: "Answer Asha Kulkarni by mail" })).toBeFocused();
  await smtp.waitFor(() => smtp.to(email).length === 2);
  const answer = smtp.to(email)[1];
  expect(answer?.parsed.inReplyTo).toBe(ack?.parsed.messageId);
  expect(answer?.parsed.text).toContain("send me the drawing");

  await card.getByRole("button", { name: "Close" }).click();
  await page.getByRole("combobox", { name: "Status" }).selectOption("closed");
  await expect(page.getByRole("article", { name: "Enquiry from Asha Kulkarni" })).toBeVisible();
  await page
    .getByRole("navigation", { name: "Console" })
    .getByRole("link", { name: "Overview" })
    .click();
  await expect(page.getByRole("region", { name: "Enquiries per week by service" })).toContainText(
    "Tolerance Stack-ups",
  );
});
