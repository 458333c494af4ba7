import { siteItems } from "../../content/items.ts";
import { readOwnerProfile } from "../../content/owner.ts";
import { priceSignal, serviceSections } from "../../content/service-page.ts";
import { siteContent } from "./support/content.ts";
import { expect, test } from "./support/fixtures.ts";

/*
 * A page per service (docs/product.md, "Services"), as a buyer meets it: read
 * without JavaScript, each section, the price, both ways on (an enquiry with the
 * service chosen, a call), the JSON-LD a search engine reads, axe clean; the
 * way in from /services and from an article that names the service.
 */

const content = siteContent();
/** The browser tests' site keeps the repository's owner profile and sets no SITE_OWNER_NAME. */
const owner = readOwnerProfile();

type Node = Record<string, unknown> & { "@type": string };

test.describe("without JavaScript", () => {
  test.use({ javaScriptEnabled: false });

  test("every service page reads whole: its sections, price, questions, both actions and its JSON-LD", async ({
    page,
    baseURL,
  }) => {
    test.slow();
    for (const service of content.services) {
      const path = `/services/${service.id}`;
      const response = await page.goto(path);
      expect(response?.status(), path).toBe(200);
      const main = page.getByRole("main");
      await expect(main.getByRole("heading", { level: 1 })).toHaveText(service.title);
      for (const section of serviceSections) {
        await expect(
          main.getByRole("heading", { name: section, exact: true, level: 2 }),
        ).toBeVisible();
      }
      await expect(main.getByText(priceSignal(service.price), { exact: true })).toBeVisible();
      for (const { question } of service.questions) {
        await expect(main.getByRole("heading", { name: question, level: 3 })).toBeVisible();
      }
      // The sample's example says it is one.
      await expect(
        main.getByText(/^Illustrative: this example comes with the sample profile/),
      ).toBeVisible();
      await expect(main.getByRole("link", { name: "Send an enquiry" })).toHaveAttribute(
        "href",
        `/services/ask/${service.id}#send-enquiry`,
      );
      await expect(main.getByRole("link", { name: "Book a call" })).toHaveAttribute(
        "href",
        `/book?service=${service.id}`,
      );
      expect(await page.content(), path).not.toContain("sample-voice");

      // What search engines read: the service, the owner's, and its questions answered.
      const graph = (
        await page
          .locator('script[type="application/ld+json"]')
          .evaluateAll((scripts) => scripts.map((script) => script.textContent ?? ""))
      ).flatMap((text) => (JSON.parse(text) as { "@graph": Node[] })["@graph"]);
      const offered = graph.find((node) => node["@type"] === "Service");
      expect(offered, path).toMatchObject({
        name: service.title,
        url: `${baseURL}${path}`,
        description: service.description,
        provider: { "@type": "Person", name: owner.name },
      });
      if (service.price !== "on request") {
        expect(offered?.offers, path).toMatchObject({
          "@type": "Offer",
          priceSpecification: {
            priceCurrency: service.price.currency,
            minPrice: service.price.from,
          },
        });
      }
      const faq = graph.find((node) => node["@type"] === "FAQPage");
      expect(faq?.mainEntity, path).toEqual(
        service.questions.map(({ question, answer }) => ({
          "@type": "Question",
          name: question,
          acceptedAnswer: { "@type": "Answer", text: answer },
        })),
      );
    }
  });

  test("a service page's enquiry link opens the form with that service chosen in the HTML", async ({
    page,
  }) => {
    await page.goto("/services/tolerance-stackups");
    await page.getByRole("main").getByRole("link", { name: "Send an enquiry" }).click();
    await expect(page).toHaveURL(/\/services\/ask\/tolerance-stackups#send-enquiry$/);
    const form = page.locator("#send-enquiry");
    await expect(form.getByRole("combobox", { name: "Service" })).toHaveValue("tolerance-stackups");
    await expect(form.locator("option[selected]")).toHaveAttribute("value", "tolerance-stackups");
  });

  test("/services leads to each service's page from its card", async ({ page }) => {
    await page.goto("/services");
    await page.getByRole("link", { name: "Tolerance Stack-ups", exact: true }).click();
    await expect(page).toHaveURL(/\/services\/tolerance-stackups$/);
    await expect(page.getByRole("heading", { level: 1 })).toHaveText("Tolerance Stack-ups");
  });
});

// Each service's page is read whole with axe, live, in clean-console.spec.ts.

test("the sitemap lists every service's page", async ({ request, baseURL }) => {
  const sitemap = await (await request.get("/sitemap.xml")).text();
  for (const service of content.services) {
    expect(sitemap).toContain(`<loc>${baseURL}/services/${service.id}</loc>`);
  }
});

test("an article that names a service ends with a line that leads to it", async ({ page }) => {
  const item = siteItems(content).find((entry) => entry.services.length > 0);
  expect(item, "an item names a related service").toBeDefined();
  if (!item) return;
  await page.goto(item.path);
  const line = page.getByRole("article").getByText(/^I do this for clients:/);
  await expect(line).toBeVisible();
  const [first] = item.services;
  await line.getByRole("link", { name: first?.title }).click();
  await expect(page).toHaveURL(new RegExp(`${first?.path}$`));
  // The page's enquiry link leads to the form with the service chosen.
  await page.getByRole("main").getByRole("link", { name: "Send an enquiry" }).click();
  await expect(page).toHaveURL(/\/services\/ask\/[a-z-]+#send-enquiry$/);
  await expect(page.getByRole("combobox", { name: "Service" })).toHaveValue(
    first?.path.split("/").at(-1) ?? "",
  );
});
