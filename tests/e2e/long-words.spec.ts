import type { Page } from "@playwright/test";
import { type ModelStub, startModelStub } from "../support/model-stub.ts";
import { expect, test } from "./support/fixtures.ts";
import { type OwnSite, startOwnSite } from "./support/own-site.ts";

/*
 * A long unbroken word where a reader's or a model's text is shown: an error
 * code pasted into a question to "Chat with Me", a model's run-on answer, a
 * long address thanked for an enquiry (docs/product.md). It wraps where it
 * stands, rather than pushing the text, or the page, out sideways.
 */

const chat = (page: Page) =>
  page.locator("section", { has: page.getByRole("heading", { name: "Chat with Me" }) });

async function ask(page: Page, question: string) {
  const area = chat(page);
  await area.getByRole("textbox", { name: "Ask a question" }).fill(question);
  await expect(area.locator("astro-island")).not.toHaveAttribute("ssr", { timeout: 15_000 });
  await area.getByRole("button", { name: "Ask" }).click();
}

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

test.describe("with a model that writes one long unbroken word", () => {
  let site: OwnSite;
  let model: ModelStub;

  test.beforeAll(async () => {
    model = await startModelStub();
    site = await startOwnSite("assistant-long-words", {
      env: {
        ASSISTANT_LLM_URL: model.url,
        ASSISTANT_LLM_MODEL: "site-writer:8b",
        ASSISTANT_LLM_TIMEOUT_MS: "3000",
      },
    });
    model.behave({ write: [`Cotton ${"y".repeat(400)} takes 180–200°C [1].`] });
  });
  test.afterAll(async () => {
    await site?.stop();
    await model?.close();
  });

  test("the answer wraps in the conversation", async ({ page }) => {
    await page.goto(`${site.siteUrl}/services`);
    await ask(page, "What temperature should I iron cotton at?");
    await expect(chat(page).getByRole("log")).toContainText("takes 180–200°C");
    expect(await overflow(page)).toBe(0);
  });

  test.describe("without JavaScript", () => {
    test.use({ javaScriptEnabled: false });

    test("the answer wraps on its page", async ({ page }) => {
      await page.goto(`${site.siteUrl}/services`);
      const area = chat(page);
      await area
        .getByRole("textbox", { name: "Ask a question" })
        .fill("What temperature should I iron cotton at?");
      await area.getByRole("button", { name: "Ask" }).click();
      await expect(page.locator("main")).toContainText("takes 180–200°C");
      expect(
        await page.evaluate(
          () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
        ),
      ).toBe(0);
    });
  });
});

test.describe("on a phone", () => {
  test.use({ viewport: { width: 375, height: 740 } });

  test("an enquiry's thanks name a long address within the screen", async ({ page }) => {
    await page.goto("/services");
    const form = page.locator("#send-enquiry");
    await form.getByRole("textbox", { name: "Your name" }).hover();
    await expect(form.locator("astro-island")).not.toHaveAttribute("ssr", { timeout: 15_000 });
    // A work address with no hyphen: its dots and "@" are no place to break a line.
    const email = `priya.raman.procurement${Math.floor(Math.random() * 1000)}@ramanmotorsinternational.co.uk`;
    await form.getByRole("textbox", { name: "Your name" }).fill("Priya Raman");
    await form.getByRole("textbox", { name: "Your email" }).fill(email);
    await form.getByRole("combobox", { name: "Service" }).selectOption("dfmea");
    await form
      .getByRole("textbox", { name: "Message" })
      .fill("We need a DFMEA for a new fuel pump module before the design freeze in March.");
    await form.getByRole("button", { name: "Send enquiry" }).click();
    const thanks = page.getByRole("status").filter({ hasText: "Thank you, Priya Raman!" });
    await expect(thanks).toContainText(email);
    expect(await thanks.evaluate((box) => box.scrollWidth - box.clientWidth)).toBe(0);
    expect(
      await page.evaluate(
        () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
      ),
    ).toBe(0);
  });
});
