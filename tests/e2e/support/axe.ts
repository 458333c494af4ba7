import AxeBuilder from "@axe-core/playwright";
import type { Page } from "@playwright/test";

/**
 * axe's serious and critical findings on a page, each as "rule: elements", so
 * a failing test names what to fix. `include` narrows the check to one part of
 * the page (a dialog, a discussion) when the rest is checked elsewhere: axe's
 * cost grows with the page, and whole pages are checked in accessibility.spec.ts.
 */
export async function seriousViolations(page: Page, include?: string): Promise<string[]> {
  const builder = new AxeBuilder({ page });
  if (include) builder.include(include);
  const { violations } = await builder.analyze();
  return violations
    .filter((violation) => violation.impact === "serious" || violation.impact === "critical")
    .map(
      (violation) =>
        `${violation.id}: ${violation.nodes.map((node) => node.target.join(" ")).join(", ")}`,
    );
}
