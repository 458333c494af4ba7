import {
  type BrowserContext,
  type BrowserContextOptions,
  test as base,
  type Page,
} from "@playwright/test";

export { expect } from "@playwright/test";

type VisitorOptions = BrowserContextOptions & {
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
 * Holds the header's marquee still, at rest where its run begins, in every page of
 * `context`. The marquee is decoration, and its own tests (shell.spec.ts) see
 * it move; elsewhere, drawing it 60 times a second without a GPU costs about
 * 8 % of a core per open page (docs/decisions/024-marquee-held-in-tests.md).
 * Every other animation runs as a reader sees it.
 */
async function holdMarquee(context: BrowserContext) {
  await context.addInitScript(() => {
    const sheet = new CSSStyleSheet();
    sheet.replaceSync(
      ".marquee-track { animation-play-state: paused !important; animation-delay: 0s !important; }",
    );
    document.adoptedStyleSheets = [...document.adoptedStyleSheets, sheet];
  });
}

/**
 * Draws every backdrop filter flat in every page of `context`, on the tests'
 * headless shell only (E2E_CHROMIUM unset): the drawer's backdrop, the
 * dialogs' overlays and the scrolled header's. Without a GPU the shell blurs
 * what lies behind them in software, on each frame while they show: the
 * drawer's multiplied the first tap's time by five, where a phone composites
 * it on its GPU (docs/decisions/048-drawer-backdrop-blurred.md).
 */
async function flatBackdrop(context: BrowserContext) {
  if (process.env.E2E_CHROMIUM) return;
  await context.addInitScript(() => {
    const sheet = new CSSStyleSheet();
    sheet.replaceSync("*, ::backdrop { backdrop-filter: none !important; }");
    document.adoptedStyleSheets = [...document.adoptedStyleSheets, sheet];
  });
}

/** What every test's pages leave out unless the test asks for it: see above. */
async function quieten(
  context: BrowserContext,
  { movingMarquee, blurredBackdrop }: { movingMarquee: boolean; blurredBackdrop: boolean },
) {
  if (!movingMarquee) await holdMarquee(context);
  if (!blurredBackdrop) await flatBackdrop(context);
}

/**
 * `test` with a `visitor` fixture: every context it opens is closed after the
 * test, whether the test passed or failed, so a failure never leaves browsers
 * running beside the next tests. Its pages, and the `page` every test gets,
 * hold the header's marquee still unless the test asks for it moving with
 * `test.use({ movingMarquee: true })`, and draw backdrop filters (the drawer's
 * backdrop, the dialogs' overlays, the scrolled header) without their blur
 * unless it asks for them with `test.use({ blurredBackdrop: true })`.
 */
export const test = base.extend<{
  visitor: OpenVisitor;
  movingMarquee: boolean;
  blurredBackdrop: boolean;
}>({
  movingMarquee: [false, { option: true }],
  blurredBackdrop: [false, { option: true }],
  context: async ({ context, movingMarquee, blurredBackdrop }, use) => {
    await quieten(context, { movingMarquee, blurredBackdrop });
    await use(context);
  },
  visitor: async ({ browser, movingMarquee, blurredBackdrop }, use) => {
    const contexts: BrowserContext[] = [];
    await use(async (options = {}) => {
      const { name, ...contextOptions } = typeof options === "string" ? { name: options } : options;
      const context = await browser.newContext(contextOptions);
      contexts.push(context);
      await quieten(context, { movingMarquee, blurredBackdrop });
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

/** A tablet's window, under the sidebar's 1024 px: the drawer and the header's controls. */
const narrowViewport = { width: 800, height: 900 };

/** Whether `page`'s window shows the drawer rather than the sidebar. */
export const isNarrow = (page: Page) => (page.viewportSize()?.width ?? 0) < 1024;

/**
 * Defines the tests `define` makes at 800 px (`narrowViewport`), under a
 * describe of that name: for what only the narrow width shows. They run in
 * the same project and workers as every other test; a project of their own
 * cost two more workers, each loading its specs and launching its browser,
 * at the run's end (docs/decisions/028-how-the-suite-stays-fast.md).
 */
export function atNarrowWidth(define: () => void) {
  test.describe("at 800 px", () => {
    test.use({ viewport: narrowViewport });
    define();
  });
}

/**
 * Defines the tests `define` makes at the desktop's width, then again at 800 px:
 * for a test whose outcome depends on the width (the drawer, the header's
 * controls, sizes, whole-page axe on one page of each layout).
 */
export function atBothWidths(define: () => void) {
  define();
  atNarrowWidth(define);
}
