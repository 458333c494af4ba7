import AxeBuilder from "@axe-core/playwright";
import type { Page } from "@playwright/test";

/**
 * axe's serious and critical findings on a page, each as "rule: elements", so
 * a failing test names what to fix. `include` narrows the check to one part of
 * the page (a dialog, a discussion) when the rest is checked elsewhere: axe's
 * cost grows with the page, and whole pages are checked in clean-console.spec.ts.
 *
 * Every rule runs; what costs less is around them. axe keeps only its
 * violations, not every node that passed (`resultTypes`), and a page with no
 * frame in it is checked by one `axe.run` inside the page ("legacy mode"),
 * not in parts joined in a blank page opened for it, which took about as long
 * again as the check. A page with a frame (the console's mail preview, a
 * sandboxed document of another origin) keeps the default, which reaches
 * frames of any origin.
 */
export async function seriousViolations(page: Page, include?: string): Promise<string[]> {
  const builder = new AxeBuilder({ page }).options({ resultTypes: ["violations"] });
  if (include) builder.include(include);
  if (page.frames().length === 1) builder.setLegacyMode();
  const { violations } = await builder.analyze();
  return violations
    .filter((violation) => violation.impact === "serious" || violation.impact === "critical")
    .map(
      (violation) =>
        `${violation.id}: ${violation.nodes.map((node) => node.target.join(" ")).join(", ")}`,
    );
}

/** axe's rules about data tables: headers, their text and what they head. */
const tableRules = [
  "empty-table-header",
  "scope-attr-valid",
  "table-duplicate-name",
  "table-fake-caption",
  "td-has-header",
  "td-headers-attr",
  "th-has-data-cells",
];

/**
 * axe's findings about the tables inside `include`, whatever their impact
 * (an empty header cell is "minor" to axe, and a screen reader announces
 * nothing for it), each as "rule: elements".
 */
export async function tableViolations(page: Page, include: string): Promise<string[]> {
  const { violations } = await new AxeBuilder({ page })
    .options({ resultTypes: ["violations"] })
    .include(include)
    .withRules(tableRules)
    .setLegacyMode()
    .analyze();
  return violations.map(
    (violation) =>
      `${violation.id}: ${violation.nodes.map((node) => node.target.join(" ")).join(", ")}`,
  );
}
