import {
  type BrowserContext,
  type BrowserContextOptions,
  test as base,
  type Page,
} from "@playwright/test";

export { expect } from "@playwright/test";

export type VisitorOptions = BrowserContextOptions & {
  /** The display name the visitor has already chosen (as the comment form stores it). */
  name?: string;
};

/**
 * Opens another visitor: a browser of its own (a new context, so its own
 * cookies and storage) with a page, under the project's settings unless
 * `options` says otherwise. A string is the display name.
 */
export type OpenVisitor = (options?: string | VisitorOptions) => Promise<Page>;

/**
 * `test` with a `visitor` fixture: every context it opens is closed after the
 * test, whether the test passed or failed, so a failure never leaves browsers
 * running beside the next tests.
 */
export const test = base.extend<{ visitor: OpenVisitor }>({
  visitor: async ({ browser }, use) => {
    const contexts: BrowserContext[] = [];
    await use(async (options = {}) => {
      const { name, ...contextOptions } = typeof options === "string" ? { name: options } : options;
      const context = await browser.newContext(contextOptions);
      contexts.push(context);
      if (name) {
        await context.addInitScript(
          (value) => localStorage.setItem("ewe:display-name", value),
          name,
        );
      }
      return context.newPage();
    });
    await Promise.all(contexts.map((context) => context.close()));
  },
});
