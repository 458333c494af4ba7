import http from "node:http";
import type { AddressInfo } from "node:net";
import { type APIRequestContext, type Browser, chromium, type Page } from "@playwright/test";
import { expect, test } from "./support/fixtures.ts";

/*
 * The pages the server writes itself, not the build (server/lib/action-page.ts:
 * the owner's comment links, the reply mails' links, an enquiry's deletion
 * link, the enquiry form's answers without JavaScript), as a browser opens
 * them from a mail: nothing they lead the browser to ask for is missing, the
 * site's icon included. A page that declares no icon sends the browser to
 * /favicon.ico.
 *
 * The icon is the one request a page cannot show: Chromium's headless shell
 * never asks for one, and the desktop browser asks from outside the page, so
 * Playwright never reports it. So these tests run in the desktop browser
 * (/usr/bin/chromium, which scripts/ensure-system-deps.sh installs) through a
 * proxy of their own that records every answer the site gives it, and each
 * page is opened in a new context, which knows no icon yet.
 */

type Answer = { path: string; status: number };

/** A forward proxy on a port of its own that records the path and status of every answer. */
async function recordingProxy() {
  const answers: Answer[] = [];
  const server = http.createServer((request, response) => {
    const target = new URL(request.url ?? "/");
    const { "proxy-connection": _unused, ...headers } = request.headers;
    const upstream = http.request(target, { method: request.method, headers }, (answer) => {
      answers.push({ path: target.pathname, status: answer.statusCode ?? 0 });
      response.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(response);
    });
    upstream.on("error", () => response.destroy());
    request.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return { answers, url: `http://127.0.0.1:${port}`, close: () => server.close() };
}

// One group of tests, so one proxy and one desktop browser: the runner splits
// a file's parallel tests into a group per worker, each running the beforeAll.
test.describe.configure({ mode: "default" });

let proxy: Awaited<ReturnType<typeof recordingProxy>>;
let browser: Browser;

test.beforeAll(async () => {
  proxy = await recordingProxy();
  browser = await chromium.launch({
    executablePath: "/usr/bin/chromium",
    args: ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-sync"],
    // Playwright sends the loopback address through the proxy too.
    proxy: { server: proxy.url },
  });
});

test.afterAll(async () => {
  await browser?.close();
  proxy?.close();
});

const isIcon = (answer: Answer) => answer.path.startsWith("/favicon");
const settled = (answer: Answer) => answer.status < 300 || answer.status >= 400;

/**
 * Opens `path` in a new context of the desktop browser, without JavaScript
 * as a mail program's browser may be, and waits until the browser has its
 * icon (after any redirect); returns the page and every answer it led to.
 */
async function openFresh(path: string, baseURL: string) {
  const context = await browser.newContext({ baseURL, javaScriptEnabled: false });
  const page = await context.newPage();
  const from = proxy.answers.length;
  await page.goto(path);
  await expect(page.locator("main h1")).toBeVisible();
  const answers = () => proxy.answers.slice(from);
  await expect
    .poll(() => answers().some((answer) => isIcon(answer) && settled(answer)), {
      message: `the browser's request for ${path}'s icon`,
    })
    .toBe(true);
  return { page, answers: answers(), close: () => context.close() };
}

/** The icon `page` declares, asked of the site by `request`, answers with an image. */
async function declaredIconLoads(page: Page, request: APIRequestContext) {
  const href = await page.locator('head link[rel="icon"]').getAttribute("href");
  expect(href).toBe("/favicon.svg");
  const response = await request.get(href ?? "");
  expect(response.status()).toBe(200);
  expect(response.headers()["content-type"]).toMatch(/^image\//);
}

const mailLinks = [
  "/owner/comments/1/delete?token=not-a-token",
  "/owner/comments/1/approve?token=not-a-token",
  "/replies/confirm?token=not-a-token",
  "/replies/unsubscribe?token=not-a-token",
  "/enquiries/delete?token=not-a-token",
];

for (const link of mailLinks) {
  test(`${link.split("?")[0]}: the browser's icon request and every other answer but the page's own succeed`, async ({
    baseURL,
    request,
  }) => {
    const opened = await openFresh(link, baseURL ?? "");
    try {
      // The page itself may be a 404 on purpose ("This link is not known"): its first answer.
      const [, ...rest] = opened.answers;
      expect(rest.filter((answer) => answer.status >= 400)).toEqual([]);
      expect(rest.filter(isIcon).filter(settled)).toEqual([{ path: "/favicon.svg", status: 200 }]);
      await declaredIconLoads(opened.page, request);
    } finally {
      await opened.close();
    }
  });
}

test("/favicon.ico, which browsers ask for when a page declares no icon, is the site's icon", async ({
  request,
}) => {
  const response = await request.get("/favicon.ico");
  expect(response.status()).toBe(200);
  expect(response.headers()["content-type"]).toBe("image/x-icon");
});

test("the pages the server answers a form with declare the site's icon", async ({
  visitor,
  request,
}) => {
  const page = await visitor({ javaScriptEnabled: false });
  // Confirm on a reply link's page: the answer ("This link is not known") is the server's page.
  await page.goto("/replies/confirm?token=not-a-token");
  await page.getByRole("button", { name: "Confirm" }).click();
  await expect(page.locator("main h1")).not.toHaveText("Confirm reply notifications");
  await declaredIconLoads(page, request);

  // The enquiry form without JavaScript: the server shows the enquiry back before it is sent.
  await page.goto("/services/ask/dfmea");
  await page.getByRole("textbox", { name: "Your name" }).fill("Asha");
  await page.getByRole("textbox", { name: "Your email" }).fill("asha@example.com");
  await page
    .getByRole("textbox", { name: "Message" })
    .fill("We need a DFMEA for a pump housing before the design review next month.");
  await page.getByRole("button", { name: "Send enquiry" }).click();
  await expect(page).not.toHaveURL(/\/services\/ask\/dfmea$/);
  await expect(page.locator("main h1")).toBeVisible();
  await declaredIconLoads(page, request);
});
