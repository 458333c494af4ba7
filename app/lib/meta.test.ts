import { describe, expect, it } from "vitest";
import { pageMeta } from "./meta.ts";

const page = (title: string, path: string) =>
  pageMeta({ title, description: "A page.", path }).title;

describe("a page's title", () => {
  it("carries the site's name, first on the home page and last elsewhere", () => {
    expect(page("Home", "/")).toBe("Engage with Engineer | Home");
    expect(page("How does soap clean?", "/science/soap")).toBe(
      "How does soap clean? | Engage with Engineer",
    );
  });

  it("is its own words alone when the site's name would take it past 70 characters", () => {
    const long = "Why does tea cool faster in a saucer or when you blow on it?";
    expect(page(long, "/science/tea-cooling")).toBe(long);
    const fits = "A".repeat(70 - " | Engage with Engineer".length);
    expect(page(fits, "/science/fits")).toBe(`${fits} | Engage with Engineer`);
    expect(page(`${fits}B`, "/science/fits")).toBe(`${fits}B`);
  });
});
