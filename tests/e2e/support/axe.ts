import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import AxeBuilder from "@axe-core/playwright";
import type { Page } from "@playwright/test";
import type { AxeResults, RunOptions } from "axe-core";

/** axe-core itself, the script AxeBuilder puts in a page. */
const axeSource = readFileSync(
  createRequire(import.meta.url).resolve("axe-core/axe.min.js"),
  "utf8",
);

/**
 * axe's violations on `page`, within `include` when given, every rule run. A
 * page with no frame in it is checked by one `axe.run` inside the page ("legacy mode"), not in parts joined in a blank
 * page opened for it, which took about as long again; and axe is put in the
 * page once per document, where AxeBuilder sends and runs its 650 KB twice
 * for every check. A page with a frame (the console's mail preview, a
 * sandboxed document of another origin) goes through AxeBuilder's default,
 * which reaches frames of any origin.
 */
async function violationsOf(page: Page, include?: string): Promise<AxeResults["violations"]> {
  // A toast or a dialog fading in is checked as it will be read, not half-drawn:
  // axe measures contrast on what is painted, and a colour caught mid-fade is
  // not the colour a reader sees. Endless animations (the marquee) are left running.
  await page.waitForFunction(
    () =>
      document
        .getAnimations()
        .every(
          (animation) =>
            animation.playState !== "running" ||
            animation.effect?.getComputedTiming().iterations === Number.POSITIVE_INFINITY,
        ),
    undefined,
    { timeout: 10_000 },
  );
  const options: RunOptions = { resultTypes: ["violations"] };
  if (page.frames().length > 1) {
    const builder = new AxeBuilder({ page }).options(options);
    if (include) builder.include(include);
    return (await builder.analyze()).violations;
  }
  const present = () =>
    page.evaluate(() => typeof (window as { axe?: { run?: unknown } }).axe?.run === "function");
  if (!(await present())) await page.evaluate(axeSource);
  return page.evaluate(
    async ({ include, options }) => {
      const { axe } = window as unknown as { axe: typeof import("axe-core") };
      const context = include ? { include: [include], exclude: [] } : document;
      return (await axe.run(context, options)).violations;
    },
    { include, options },
  );
}

/**
 * axe's serious and critical findings on a page, each as "rule: elements", so
 * a failing test names what to fix. `include` narrows the check to one part of
 * the page (a dialog, a discussion) when the rest is checked elsewhere: axe's
 * cost grows with the page, and one whole page of each layout is checked in
 * clean-console.spec.ts.
 *
 * Every rule runs; what costs less is around them (`violationsOf`): axe keeps
 * only its violations, not every node that passed (`resultTypes`).
 */
export async function seriousViolations(page: Page, include?: string): Promise<string[]> {
  const violations = await violationsOf(page, include);
  return violations
    .filter((violation) => violation.impact === "serious" || violation.impact === "critical")
    .map(
      (violation) =>
        `${violation.id}: ${violation.nodes.map((node) => node.target.join(" ")).join(", ")}`,
    );
}
