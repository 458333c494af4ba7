import { randomBytes } from "node:crypto";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { formTokenFor } from "../support/newsletter.ts";
import { freePort } from "../support/postgres.ts";
import { type ServerProcess, startServerProcess } from "../support/server-process.ts";
import { expect, test } from "./support/fixtures.ts";
import { newsletterHydrated } from "./support/islands.ts";
import { confirmationLink } from "./support/newsletter.ts";
import { siteEnv, siteServer } from "./support/site.ts";

/*
 * The confirmation link as a reader meets it: subscribed through the API, the
 * mail read from DATA_DIR/outbox/ (no SMTP_URL), the link opened in Chromium.
 * The spec starts its own server so it knows the data directory.
 */
// One server for the file's tests, in one worker, in order: split across two
// workers, each would start its own
// (docs/decisions/028-how-the-suite-stays-fast.md). A failure does not skip the others.
test.describe.configure({ mode: "default" });

let server: ServerProcess;
let dataDir: string;

test.beforeAll(async () => {
  dataDir = mkdtempSync(path.join(tmpdir(), "ewe-e2e-confirm-"));
  const port = await freePort();
  server = await startServerProcess({
    args: siteServer.args,
    env: {
      ...siteServer.env,
      PORT: String(port),
      SITE_URL: `http://127.0.0.1:${port}`,
      DATA_DIR: dataDir,
      // The pages the browser tests built, wherever the run put them.
      BUILD_DIR: siteEnv.BUILD_DIR,
    },
  });
});

test.afterAll(async () => {
  await server?.stop();
});

test("the mailed link confirms only when the reader presses Confirm, and only once", async ({
  page,
  request,
}, testInfo) => {
  const email = `joining-${testInfo.project.name}-${randomBytes(4).toString("hex")}@example.com`;
  const subscribed = await request.post(`${server.url}/api/subscribers`, {
    data: { email, formToken: formTokenFor({ DATA_DIR: dataDir }) },
    headers: { Origin: server.url },
  });
  expect(subscribed.status()).toBe(202);
  const link = await confirmationLink(dataDir, email);

  await page.goto(link);
  await expect(page.getByRole("heading", { name: "Confirm your subscription" })).toBeVisible();
  await page.getByRole("button", { name: "Confirm" }).click();
  await expect(page.getByRole("status")).toHaveText(/Thank you: your subscription is confirmed/);
  // The button is gone: the outcome takes the focus, not the page.
  await expect(page.getByRole("status")).toBeFocused();

  // Opened again, the used link says so at once, without offering the button.
  await page.goto(link);
  await expect(page.getByRole("alert")).toHaveText(/already been used: the subscription/);
  await expect(page.getByRole("button", { name: "Confirm" })).toHaveCount(0);

  // Subscribed, the footer's form answers as for anyone: it tells nobody who is on the list.
  await page.goto(`${server.url}/about`);
  await newsletterHydrated(page);
  await page.getByRole("textbox", { name: "Email address" }).fill(email.toUpperCase());
  await page.getByRole("button", { name: "Subscribe" }).click();
  await expect(page.getByRole("status")).toHaveText(/Thank you.*Check your inbox/, {
    timeout: 6_000,
  });
});

test('the footer\'s form meets a mistyped domain with "Did you mean …?", and puts the one chosen in the field', async ({
  page,
}) => {
  await page.goto(`${server.url}/about`);
  await newsletterHydrated(page);
  const field = page.getByRole("textbox", { name: "Email address" });
  await field.fill("ravi@gmial.com");
  await field.press("Tab");
  await expect(page.getByText("Did you mean ravi@gmail.com?")).toBeVisible();
  await page.getByRole("button", { name: "ravi@gmail.com" }).click();
  await expect(field).toHaveValue("ravi@gmail.com");
  await expect(field).toBeFocused();
  await expect(page.getByText("Did you mean")).toHaveCount(0);
});

test("opening the link alone confirms nothing", async ({ page, request }, testInfo) => {
  const email = `scanner-${testInfo.project.name}-${randomBytes(4).toString("hex")}@example.com`;
  await request.post(`${server.url}/api/subscribers`, {
    data: { email, formToken: formTokenFor({ DATA_DIR: dataDir }) },
    headers: { Origin: server.url },
  });
  const link = await confirmationLink(dataDir, email);
  await page.goto(link);
  await expect(page.getByRole("button", { name: "Confirm" })).toBeVisible();
  // A second visit still offers the button: the first changed nothing.
  await page.goto(link);
  await page.getByRole("button", { name: "Confirm" }).click();
  await expect(page.getByRole("status")).toHaveText(/confirmed/);
});

test("a link nobody was sent, or one forgotten a week on, says what to do", async ({ page }) => {
  await page.goto(
    `${server.url}/newsletter/confirm?token=${randomBytes(32).toString("base64url")}`,
  );
  await expect(page.getByRole("alert")).toHaveText(
    /This confirmation link is not recognised\. .* A link more than a week old is forgotten with the address it was sent to: subscribe again in the form below\./,
  );
  await expect(page.getByRole("button", { name: "Confirm" })).toBeHidden();
});

test.describe("with JavaScript off", () => {
  test.use({ javaScriptEnabled: false });

  test("the mailed link confirms by the page's own form, and says so once it is used", async ({
    page,
    request,
  }, testInfo) => {
    const email = `no-script-${testInfo.project.name}-${randomBytes(4).toString("hex")}@example.com`;
    await request.post(`${server.url}/api/subscribers`, {
      data: { email, formToken: formTokenFor({ DATA_DIR: dataDir }) },
      headers: { Origin: server.url },
    });
    const link = await confirmationLink(dataDir, email);
    await page.goto(link);
    await expect(page.getByText(/needs JavaScript/)).toHaveCount(0);
    // The island's "Reading…" would wait forever here: the page's form asks instead.
    await expect(page.getByText("Reading your confirmation link…")).toBeHidden();
    await page.getByRole("button", { name: "Confirm" }).click();
    await expect(page.getByRole("heading", { name: "Subscription confirmed" })).toBeVisible();
    await page.goto(link);
    await page.getByRole("button", { name: "Confirm" }).click();
    await expect(page.getByRole("heading", { name: "Already confirmed" })).toBeVisible();

    // Subscribed, the form's two steps lead to the same thanks as for anyone.
    await page.goto(`${server.url}/about`);
    await page.getByRole("textbox", { name: "Email address" }).fill(email);
    await page.getByRole("button", { name: "Subscribe" }).click();
    await expect(page.getByRole("heading", { name: "One more step" })).toBeVisible();
    const answered = Date.now();
    await expect.poll(() => Date.now() - answered, { intervals: [250] }).toBeGreaterThan(2100);
    await page.getByRole("main").getByRole("button", { name: "Subscribe" }).click();
    await expect(page).toHaveURL(/\/newsletter\/thanks$/);
    await expect(page.getByRole("status")).toHaveText(/Check your inbox/);
  });
});
