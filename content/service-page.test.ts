import { cpSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { contentCopy } from "../tests/support/content-copy.ts";
import { siteItems } from "./items.ts";
import { defaultContentRoot, loadContent } from "./load.ts";
import { priceSignal, serviceSections } from "./service-page.ts";

const copy = contentCopy();
const { edit } = copy;

describe("service pages", () => {
  it("have every section, a price signal and their questions answered", () => {
    const { services } = loadContent(copy.root);
    expect(services).toHaveLength(9);
    for (const service of services) {
      for (const section of serviceSections) {
        // Each heading with its anchor, which the page and the assistant's sources link to.
        expect(service.pageHtml, service.id).toMatch(
          new RegExp(`<h2 id="[a-z-]+">${section}</h2>`),
        );
      }
      expect(service.words, service.id).toBeGreaterThanOrEqual(500);
      expect(service.questions.length, service.id).toBeGreaterThanOrEqual(3);
      for (const { question, answer } of service.questions) {
        expect(question, service.id).toMatch(/\?$/);
        expect(answer.length, question).toBeGreaterThan(40);
      }
    }
    const dfmea = services.find((service) => service.id === "dfmea");
    expect(dfmea?.questions[0]?.question).toBe(
      "Do you follow AIAG-VDA or the older AIAG fourth edition?",
    );
  });

  it.each(serviceSections)("fail the content check without their %j section", (section) => {
    edit("services/vba-tools.md", (source) => source.replace(`\n## ${section}\n`, "\n"));
    expect(() => loadContent(copy.root)).toThrow(
      `services/vba-tools.md: a service page needs the sections "## What you get", "## How it works", "## Typical engagements", "## Example", "## Questions"; missing "## ${section}"`,
    );
  });

  it("fail the content check with a price in another form, saying the forms", () => {
    edit("services/vba-tools.md", (source) =>
      source.replace(/^price:.*(\n {2}.*)*/m, "price: 5000"),
    );
    expect(() => loadContent(copy.root)).toThrow(
      'price: must be "on request", or {currency, from, per} with an optional to',
    );
  });

  it.each([
    ["A first call {{first call}}", "A free first call"],
    ["A first call {{first call}}", "A 30-minute first call"],
    ["A first call {{first call}}", "A first call of half an hour"],
  ])("fail the content check with a call's terms written by hand (%j as %j)", (token, hand) => {
    edit("services/vba-tools.md", (source) => source.replace(token, hand));
    expect(() => loadContent(copy.root)).toThrow(
      /services\/vba-tools.md: ".*" gives a call's length or price by hand \(".*"\); write \{\{first call\}\}/,
    );
  });

  it("fail the content check with a section left empty", () => {
    edit("services/vba-tools.md", (source) =>
      source.replace(/\n## Example\n[\s\S]*?\n## /, "\n## Example\n\n## "),
    );
    expect(() => loadContent(copy.root)).toThrow(
      'services/vba-tools.md: the section "## Example" is empty',
    );
  });

  it("fail the content check with their sections out of order, or a question without an answer", () => {
    edit("services/vba-tools.md", (source) =>
      source
        .replace("## Example", "## Questionz")
        .replace("## Questions", "## Example")
        .replace("## Questionz", "## Questions"),
    );
    expect(() => loadContent(copy.root)).toThrow(
      "services/vba-tools.md: the sections go in this order",
    );
    cpSync(path.join(defaultContentRoot, "services"), path.join(copy.root, "services"), {
      recursive: true,
    });
    edit("services/vba-tools.md", (source) => `${source.trimEnd()}\n\n### And one more?\n`);
    expect(() => loadContent(copy.root)).toThrow(
      'services/vba-tools.md: the question "And one more?" has no answer',
    );
  });

  it("say their price as the owner sets it", () => {
    expect(priceSignal("on request")).toBe("Price on request");
    expect(priceSignal({ currency: "INR", from: 45000, per: "per training day" })).toBe(
      "From ₹45,000 per training day",
    );
    expect(priceSignal({ currency: "INR", from: 120000, to: 350000, per: "for one system" })).toBe(
      "₹1,20,000 to ₹3,50,000 for one system",
    );
    edit("services/dfmea.md", (source) => source.replace("to: 350000", "to: 100000"));
    expect(() => loadContent(copy.root)).toThrow("price.to: to must be above from");
  });
});

describe("an item's related services", () => {
  const withServices = (ids: string) => (source: string) =>
    source.replace(/\n---\n/, `\nservices: ${ids}\n---\n`);

  it("lead its page to the services it names", () => {
    edit("science/soap.md", withServices('["dfmea", "technical-training"]'));
    const soap = siteItems(loadContent(copy.root)).find((item) => item.path === "/science/soap");
    expect(soap?.services).toEqual([
      { title: "DFMEA", path: "/services/dfmea" },
      { title: "Technical Training", path: "/services/technical-training" },
    ]);
  });

  it("fail the content check when one is not a service", () => {
    edit("science/soap.md", withServices('["dfma"]'));
    expect(() => loadContent(copy.root)).toThrow(
      'science/soap.md: services: "dfma" is not a service (content/services/ has mechanical-design, ic-engine-projects',
    );
  });
});
