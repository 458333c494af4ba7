import type { Page } from "@playwright/test";
import { type ModelStub, startModelStub } from "../support/model-stub.ts";
import { seriousViolations } from "./support/axe.ts";
import { expect, test } from "./support/fixtures.ts";
import { type OwnSite, startOwnSite } from "./support/own-site.ts";

/*
 * "Chat with Me" as a new reader meets it on a fresh install, with no
 * third-party chatbot configured (docs/product.md, "Chat with Me"): the
 * site's own assistant answers from the site's pages with a link to the one
 * it quotes, declines what the site does not hold with the offer to ask the
 * engineer, and leads to the enquiry form with the service and the question
 * filled in. Without JavaScript the same area is a form whose answer is a page.
 */

const chat = (page: Page) =>
  page.locator("section", { has: page.getByRole("heading", { name: "Chat with Me" }) });

/**
 * Types the question and presses Ask. Typing hydrates the area; with
 * JavaScript the test waits until it is live (on a loaded machine a press
 * before that would send the plain form, as it should).
 */
async function ask(page: Page, question: string, { live = true } = {}) {
  const area = chat(page);
  await area.getByRole("textbox", { name: "Ask a question" }).fill(question);
  if (live)
    await expect(area.locator("astro-island")).not.toHaveAttribute("ssr", { timeout: 15_000 });
  await area.getByRole("button", { name: "Ask" }).click();
}

/** The answer's call about `service`, and its enquiry, opened: that service, `question` its message. */
async function offersService(page: Page, service: string, question: string) {
  const log = chat(page).getByRole("log", { name: "Conversation" });
  await expect(log.getByRole("link", { name: "Book a call" })).toHaveAttribute(
    "href",
    `/book?service=${service}`,
  );
  await log.getByRole("link", { name: "Send an enquiry" }).click();
  const form = page.locator("#send-enquiry");
  await expect(form.getByRole("combobox", { name: "Service" })).toHaveValue(service);
  await expect(form.getByRole("textbox", { name: "Message" })).toHaveValue(question);
}

test("answers from the page that holds the answer, with a working link to it", async ({ page }) => {
  await page.goto("/services");
  // Who answers is said before anything is asked: the site's assistant, not the engineer.
  await expect(chat(page)).toContainText(
    "The site's assistant answers from its pages and links to them; what it cannot find, ask me in an enquiry.",
  );
  const log = chat(page).getByRole("log", { name: "Conversation" });
  await ask(page, "Why does a pressure cooker whistle?");
  const answer = log.locator("blockquote").last();
  await expect(answer).toContainText("whistle");
  await expect(log.getByRole("button", { name: "Read aloud" })).toHaveCount(
    (await page.evaluate(() => "speechSynthesis" in window)) ? 1 : 0,
  );
  expect(await seriousViolations(page, "#chat-heading + *")).toEqual([]);

  // A follow-up keeps the topic.
  await ask(page, "What temperature should I iron cotton at?");
  await expect(log.locator("blockquote").last()).toContainText("cotton 180–200°C");
  await ask(page, "and for silk?");
  await expect(log.locator("blockquote").last()).toContainText("silk 120–150°C");

  await log.getByRole("link", { name: /Why does a pressure cooker cook faster\?/ }).click();
  await expect(page).toHaveURL(/\/science\/pressure-cooker#the-weight-valve$/);
  await expect(
    page.getByRole("heading", { level: 1, name: "Why does a pressure cooker cook faster?" }),
  ).toBeVisible();
});

test("declines an off-topic question and offers the enquiry form with the question", async ({
  page,
}) => {
  await page.goto("/services");
  const log = chat(page).getByRole("log", { name: "Conversation" });
  await ask(page, "Who won the football world cup in 2018?");
  await expect(log).toContainText("I could not find that on this site");
  // The reader's verdict is given once, by keyboard too: the button pressed stays pressed,
  // and focused, and both are disabled.
  const helpful = log.getByRole("button", { name: "Helpful", exact: true });
  const notHelpful = log.getByRole("button", { name: "Not helpful" });
  await notHelpful.focus();
  await page.keyboard.press("Enter");
  await expect(notHelpful).toHaveAttribute("aria-pressed", "true");
  await expect(notHelpful).toBeFocused();
  await expect(helpful).toHaveAttribute("aria-pressed", "false");
  await expect(helpful).toBeDisabled();
  await expect(log).toContainText("Thank you: the engineer will see it.");
  await log.getByRole("link", { name: "Send an enquiry" }).click();
  const form = page.locator("#send-enquiry");
  await expect(form.getByRole("textbox", { name: "Message" })).toHaveValue(
    "Who won the football world cup in 2018?",
  );
  // The question went to the form in the browser: the address holds none of it.
  expect(new URL(page.url()).pathname + new URL(page.url()).search).toBe("/services");

  // Asked again, the form already live, the new question replaces the one handed over.
  await ask(page, "Who won the rugby world cup in 2019?");
  await expect(log.getByRole("link", { name: "Send an enquiry" })).toHaveCount(2);
  await log.getByRole("link", { name: "Send an enquiry" }).last().click();
  await expect(form.getByRole("textbox", { name: "Message" })).toHaveValue(
    "Who won the rugby world cup in 2019?",
  );
});

test("a refused question says what to change, in words, and stays in the box", async ({ page }) => {
  await page.goto("/services");
  const area = chat(page);
  // A soft hyphen, pasted with the word from a page that splits it: invisible, and refused.
  const question = "How long does a DF\u00adMEA take?";
  await ask(page, question);
  await expect(area.getByRole("alert")).toHaveText(
    "A question is plain text, without control or invisible characters: type it rather than paste it.",
  );
  const box = area.getByRole("textbox", { name: "Ask a question" });
  await expect(box).toHaveValue(question);
  await expect(box).toBeFocused();
});

test("answers a question about a service, and its enquiry comes with the service chosen", async ({
  page,
}) => {
  await page.goto("/services");
  const log = chat(page).getByRole("log", { name: "Conversation" });
  await ask(page, "Can you review our tolerance stack-up?");
  await expect(log).toContainText("Tolerance Stack-ups");
  await expect(log).toContainText("Monte Carlo simulation");
  // The site has a booking page: the answer offers a call about that service too.
  await offersService(page, "tolerance-stackups", "Can you review our tolerance stack-up?");
  await expect(page).toHaveURL(/\/services\/ask\/tolerance-stackups#send-enquiry$/);
});

test("a question declined on a service's page leads to that service's enquiry and call", async ({
  page,
}) => {
  await page.goto("/services/dfmea");
  const log = chat(page).getByRole("log", { name: "Conversation" });
  await ask(page, "Who won the football world cup in 2018?");
  await expect(log).toContainText("I could not find that on this site");
  await offersService(page, "dfmea", "Who won the football world cup in 2018?");
});

test("a service's own page offers the chat with a first question about that service, asked by keyboard", async ({
  page,
}) => {
  await page.goto("/services/dfmea");
  const area = chat(page);
  const log = area.getByRole("log", { name: "Conversation" });
  const suggestion = log.getByRole("button", { name: "What does the DFMEA service include?" });
  await expect(suggestion).toBeVisible();
  // The area's script loads at its first use only, as on /services.
  await expect(area.locator("astro-island")).toHaveAttribute("ssr");
  // From the question's field, one step back is the suggestion; Enter asks it.
  await area.getByRole("textbox", { name: "Ask a question" }).focus();
  await expect(area.locator("astro-island")).not.toHaveAttribute("ssr", { timeout: 15_000 });
  expect(await seriousViolations(page)).toEqual([]);
  await page.keyboard.press("Shift+Tab");
  await expect(suggestion).toBeFocused();
  await page.keyboard.press("Enter");
  await expect(log).toContainText("You asked: What does the DFMEA service include?");
  await expect(log.getByRole("link", { name: "Book a call" })).toHaveAttribute(
    "href",
    "/book?service=dfmea",
  );
  // Asked, the suggestion goes, and the reader is back in the field for the next question.
  await expect(suggestion).toHaveCount(0);
  await expect(area.getByRole("textbox", { name: "Ask a question" })).toBeFocused();
  expect(await seriousViolations(page, "#chat-heading + *")).toEqual([]);
});

test.describe("at 200 % zoom on a window 800 px high", () => {
  test.use({ viewport: { width: 640, height: 400 } });

  test("the heading, the conversation, its field and the Ask button fit in the window together", async ({
    page,
  }) => {
    // Where the area's heading is scrolled to, as a link to it (and an answer page's GET) leads.
    await page.goto("/services#chat-heading");
    const heading = chat(page).getByRole("heading", { name: "Chat with Me" });
    await expect(heading).toBeInViewport({ ratio: 1 });
    const header = await page.locator("header").first().boundingBox();
    const top = await heading.boundingBox();
    expect(top && header && top.y >= header.y + header.height).toBe(true);
    await expect(chat(page).getByRole("log", { name: "Conversation" })).toBeInViewport({
      ratio: 1,
    });
    await expect(chat(page).getByRole("textbox", { name: "Ask a question" })).toBeInViewport({
      ratio: 1,
    });
    await expect(chat(page).getByRole("button", { name: "Ask" })).toBeInViewport({ ratio: 1 });
  });
});

/** How far the conversation's content reaches past its right edge, in pixels. */
const overflow = (page: Page) =>
  chat(page)
    .getByRole("log", { name: "Conversation" })
    .evaluate((log) => log.scrollWidth - log.clientWidth);

test("a question of one long unbroken word wraps in the conversation", async ({ page }) => {
  await page.goto("/services");
  // An error code pasted whole: no hyphen or space to break it at.
  const pasted = `E${"0123456789ABCDEF".repeat(12)}`;
  await ask(page, `Why does my pressure cooker show ${pasted} and whistle?`);
  await expect(chat(page).getByRole("log")).toContainText(pasted);
  await expect(chat(page).getByRole("log").locator("blockquote").last()).toContainText("whistle");
  expect(await overflow(page)).toBe(0);
});

test.describe("with a model that writes the answers", () => {
  // One server and model for these tests, in one worker, in order: split across the
  // two workers, each started its own. A failure does not skip the others.
  test.describe.configure({ mode: "default" });
  let site: OwnSite;
  let model: ModelStub;

  test.beforeAll(async () => {
    model = await startModelStub();
    site = await startOwnSite("assistant-model", {
      env: {
        ASSISTANT_LLM_URL: model.url,
        ASSISTANT_LLM_MODEL: "site-writer:8b",
        ASSISTANT_LLM_TIMEOUT_MS: "3000",
      },
    });
  });
  test.afterAll(async () => {
    await site?.stop();
    await model?.close();
  });

  test("shows the answer as it is written, its citation a link to the source, and the quote when the model stalls", async ({
    page,
  }) => {
    model.behave({
      write: ["Cotton takes a hot iron, ", "about 180–200°C, ", "and linen more [1]."],
    });
    await page.goto(`${site.siteUrl}/services`);
    const log = chat(page).getByRole("log", { name: "Conversation" });
    await ask(page, "What temperature should I iron cotton at?");
    await expect(log).toContainText("Cotton takes a hot iron, about 180–200°C, and linen more");
    await expect(
      log.getByRole("link", {
        name: "[1] Why does an iron remove wrinkles? › Pressing temperatures",
      }),
    ).toHaveAttribute("href", "/science/ironing#pressing-temperatures");
    expect(await seriousViolations(page, "#chat-heading + *")).toEqual([]);

    // The model stops after its first words: past the timeout the quote takes their place.
    model.behave({ hangAfter: "Silk is ironed " });
    await ask(page, "and for silk?");
    await expect(log.locator("blockquote").last()).toContainText("silk 120–150°C", {
      timeout: 15_000,
    });
    await expect(log).not.toContainText("Silk is ironed");
  });

  test("wraps a model's run-on word, in the Conversation and on the page without JavaScript", async ({
    page,
    browser,
  }) => {
    model.behave({ write: [`Cotton ${"y".repeat(400)} takes 180–200°C [1].`] });
    await page.goto(`${site.siteUrl}/services`);
    await ask(page, "What temperature should I iron cotton at?");
    await expect(chat(page).getByRole("log")).toContainText("takes 180–200°C");
    expect(await overflow(page)).toBe(0);

    const plain = await browser.newContext({ javaScriptEnabled: false });
    try {
      const page = await plain.newPage();
      await page.goto(`${site.siteUrl}/services`);
      await ask(page, "What temperature should I iron cotton at?", { live: false });
      await expect(page.locator("main")).toContainText("takes 180–200°C");
      expect(
        await page.evaluate(
          () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
        ),
      ).toBe(0);
    } finally {
      await plain.close();
    }
  });

  test("shows a hostile model's words as words: nothing runs, nothing is fetched from elsewhere", async ({
    page,
  }) => {
    const elsewhere: string[] = [];
    page.on("request", (request) => {
      if (new URL(request.url()).origin !== new URL(site.siteUrl).origin)
        elsewhere.push(request.url());
    });
    page.on("dialog", (dialog) => {
      elsewhere.push(`a dialog: ${dialog.message()}`);
      void dialog.dismiss();
    });
    model.behave({
      write: [
        '<img src="https://tracker.example/p.gif" onerror="alert(1)"><script>alert(2)</script> ',
        "![pixel](https://tracker.example/p.gif) [see](javascript:alert(3)) ",
        "Cotton \u202eevil.exe\u202c takes 180–200°C [1].",
      ],
    });
    await page.goto(`${site.siteUrl}/services`);
    const log = chat(page).getByRole("log", { name: "Conversation" });
    await ask(page, "What temperature should I iron cotton at?");
    await expect(log).toContainText(
      "<script>alert(2)</script> ![pixel](https://tracker.example/p.gif)",
    );
    await expect(log).toContainText("Cotton evil.exe takes 180–200°C");
    await expect(log.locator("img, script")).toHaveCount(0);
    for (const href of await log
      .locator("a")
      .evaluateAll((links) => links.map((a) => a.getAttribute("href")))) {
      expect(href).toMatch(/^\/(?!\/)/);
    }
    expect(elsewhere).toEqual([]);
  });
});

test.describe("without JavaScript", () => {
  test.use({ javaScriptEnabled: false });

  test("the area is a form, and its answer a page with its source", async ({ page }) => {
    await page.goto("/services");
    await ask(page, "How does soap clean grease?", { live: false });
    await expect(page.getByRole("heading", { level: 1, name: "Chat with Me" })).toBeVisible();
    await page.getByRole("link", { name: /How does soap clean\?/ }).click();
    await expect(
      page.getByRole("heading", { level: 1, name: "How does soap clean?" }),
    ).toBeVisible();
    // Back from the source: the answer as it was, from the browser's history, not asked again.
    await page.goBack();
    await expect(page.getByRole("heading", { level: 1, name: "Chat with Me" })).toBeVisible();
    await expect(page.getByRole("link", { name: /How does soap clean\?/ })).toBeVisible();

    // On a service's page, the suggested question is a form of its own: its answer, the service.
    const answersAboutDfmea = async () => {
      await expect(page.getByRole("heading", { level: 1, name: "Chat with Me" })).toBeVisible();
      await expect(page.getByRole("link", { name: "Book a call" })).toHaveAttribute(
        "href",
        "/book?service=dfmea",
      );
      await leadsBackToDfmea();
    };
    const leadsBackToDfmea = () =>
      expect(page.getByRole("link", { name: /^Back to .*DFMEA/ })).toHaveAttribute(
        "href",
        "/services/dfmea",
      );
    await page.goto("/services/dfmea");
    await chat(page).getByRole("button", { name: "What does the DFMEA service include?" }).click();
    await answersAboutDfmea();

    // A refused question keeps the service page: in the form asked again, and in the way back.
    await page.goto("/services/dfmea");
    await ask(page, "What does DFMEA\u200B include?", { live: false });
    await expect(page.getByRole("alert")).toContainText("plain text");
    await leadsBackToDfmea();
    await page.getByRole("textbox", { name: "Ask a question" }).fill("What does DFMEA include?");
    await page.getByRole("button", { name: "Ask" }).click();
    await answersAboutDfmea();
  });

  test("a question declined on a service's page leads to that service's enquiry and call", async ({
    page,
  }) => {
    await page.goto("/services/dfmea");
    await ask(page, "Who won the football world cup in 2018?", { live: false });
    await expect(page.getByRole("heading", { level: 1, name: "Chat with Me" })).toBeVisible();
    await expect(page.getByRole("link", { name: "Book a call" })).toHaveAttribute(
      "href",
      "/book?service=dfmea",
    );
    await page.getByRole("button", { name: "Send an enquiry" }).click();
    await expect(page.getByRole("heading", { level: 1, name: "Send an enquiry" })).toBeVisible();
    await expect(page.getByRole("combobox", { name: "Service" })).toHaveValue("dfmea");
  });

  test("an answer page opened again without its form (a restored tab, a bookmark) leads to the form", async ({
    page,
  }) => {
    await page.goto("/services/assistant");
    await expect(page).toHaveURL(/\/services#chat-heading$/);
    await expect(chat(page).getByRole("textbox", { name: "Ask a question" })).toBeInViewport();
    await page.goto("/services/enquiry");
    await expect(page).toHaveURL(/\/services#send-enquiry$/);
    await expect(page.getByRole("heading", { level: 2, name: "Send an enquiry" })).toBeInViewport();
  });

  test("an answer's enquiry is the form filled in with the question, which no address holds", async ({
    page,
  }) => {
    const addresses: string[] = [];
    page.on("request", (request) => addresses.push(request.url()));
    await page.goto("/services");
    const question = "Who won the football world cup in 2018?";
    await ask(page, question, { live: false });
    await expect(page.getByRole("blockquote").first()).toContainText(question);
    await page.getByRole("button", { name: "Send an enquiry" }).click();
    await expect(page.getByRole("heading", { level: 1, name: "Send an enquiry" })).toBeVisible();
    await expect(page.getByRole("textbox", { name: "Message" })).toHaveValue(question);
    await expect(page).toHaveURL(/\/services\/enquiry$/);
    expect(addresses.filter((url) => /football|message=/i.test(decodeURIComponent(url)))).toEqual(
      [],
    );
  });

  test("a refused follow-up comes back in the box, its message beside it, and the question before it kept", async ({
    page,
    visitor,
  }) => {
    await page.goto("/services");
    await ask(page, "What temperature should I iron cotton at?", { live: false });
    await expect(page.locator("blockquote").last()).toContainText("cotton 180–200°C");
    // Typed text is escaped: a quote and a tag come back as typed, in the box.
    // The answer page is the form alone, with no section around it.
    const askHere = async (question: string) => {
      await page.getByRole("textbox", { name: "Ask a question" }).fill(question);
      await page.getByRole("button", { name: "Ask" }).click();
    };
    const typed = 'and for silk\u200B? <script>alert("x")</script>';
    await askHere(typed);
    const box = page.getByRole("textbox", { name: "Ask a question" });
    await expect(box).toHaveValue(typed);
    await expect(box).toHaveAttribute("aria-invalid", "true");
    await expect(box).toHaveAccessibleDescription(/plain text/);
    await expect(page.getByRole("alert")).toContainText("plain text");
    // axe runs in a page with scripts, on the same markup: the refusal's page has none of its own.
    const scripted = await visitor({ javaScriptEnabled: true });
    await scripted.setContent(await page.content());
    expect(await seriousViolations(scripted)).toEqual([]);
    // The follow-up, corrected, is still read with the question before it.
    await askHere("and for silk?");
    await expect(page.locator("blockquote").last()).toContainText("silk 120–150°C");
  });
});
