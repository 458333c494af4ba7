import path from "node:path";
import { DatabaseSync } from "node:sqlite";
import type { Page, Request } from "@playwright/test";
import { formTokenResponseSchema } from "../../contract/api.ts";
import { slotsResponseSchema } from "../../contract/bookings.ts";
import { type ReceivedMail, type SmtpSink, startSmtpSink } from "../server/support/smtp.ts";
import { calendarOfMail } from "../support/calendar.ts";
import { seriousViolations } from "./support/axe.ts";
import { expect, test } from "./support/fixtures.ts";
import { type OwnSite, ownerCli, ownerPage, signInWith, startOwnSite } from "./support/own-site.ts";
import { siteEnv } from "./support/site.ts";

/*
 * Booking a call as a new reader does it (docs/product.md, "Book a call"):
 * from /services to /book, in Chromium with JavaScript and without, on a site
 * of this spec's own whose engineer works in India and which mails through a
 * real SMTP server on loopback; the invitation read back by a calendar
 * library, and the call cancelled from the mail's link.
 */

const owner = "owner@example.com";
const ownerZone = "Asia/Kolkata";

// One server for the file's tests, in one worker, in order: split across two
// workers, each would start its own
// (docs/decisions/028-how-the-suite-stays-fast.md). A failure does not skip the others.
test.describe.configure({ mode: "default" });

let smtp: SmtpSink;
let site: OwnSite;

test.beforeAll(async () => {
  smtp = await startSmtpSink();
  site = await startOwnSite("bookings", {
    env: {
      SMTP_URL: smtp.url,
      OWNER_EMAIL: owner,
      MAIL_RATE_PER_MINUTE: "0",
      COMMENT_MIN_SECONDS: siteEnv.COMMENT_MIN_SECONDS,
      BOOKING_TIMEZONE: ownerZone,
      // Every reader here books from one loopback address: its hour's allowance would come
      // before the address's own limits, which the spec shows.
      BOOKINGS_PER_HOUR: "20",
    },
  });
});
test.afterAll(async () => {
  await site?.stop();
  await smtp?.close();
});

/** The one event of a mail's calendar attachment, as a calendar program reads it, and its method. */
function invitation(mail: ReceivedMail | undefined) {
  const calendar = calendarOfMail(mail);
  if (!calendar) throw new Error("no calendar file in the mail");
  return calendar;
}

/** A free time as its radio button is named: its hour and minute in `timeZone`. */
const localTime = (start: string, timeZone: string) =>
  new Intl.DateTimeFormat("en-GB", {
    timeZone,
    hour: "2-digit",
    minute: "2-digit",
    hourCycle: "h23",
  }).format(Date.parse(start));

async function freeStarts(page: Page): Promise<string[]> {
  const response = await page.request.get(`${site.siteUrl}/api/bookings/slots`);
  return slotsResponseSchema.parse(await response.json()).starts;
}

/**
 * Both sides' mails about the call at `start` booked for `email`: its invitation (or
 * cancellation) to each; the owner's copy of an invitation is published to them.
 */
async function mailsFor(email: string, start: string, method: "REQUEST" | "CANCEL") {
  const about = (wanted: string) => (mail: ReceivedMail) => {
    if (!mail.parsed.attachments.some((a) => a.contentType.startsWith("text/calendar")))
      return false;
    const { event, method: carried } = invitation(mail);
    return carried === wanted && event.start.toISOString() === start;
  };
  const readers = () => smtp.to(email).filter(about(method));
  const owners = () => smtp.to(owner).filter(about(method === "REQUEST" ? "PUBLISH" : method));
  await smtp.waitFor(() => readers().length > 0 && owners().length > 0);
  return { reader: readers()[0], owner: owners()[0] };
}

/** Another reader takes the time `start` through the API, as the page's reader is about to book it. */
async function takeMeanwhile(page: Page, start: string, email: string) {
  const { formToken } = formTokenResponseSchema.parse(
    await (await page.request.get(`${site.siteUrl}/api/bookings/form-token`)).json(),
  );
  let answer: { status: number; body: string } = { status: 0, body: "" };
  // Sent sooner than a person could fill the form, it is refused and its token not spent:
  // sent again. Any other answer is the booking's, and says why should it not be 201.
  await expect(async () => {
    const response = await page.request.post(`${site.siteUrl}/api/bookings`, {
      headers: { origin: site.siteUrl },
      data: { start, name: "Arjun Rao", email, service: "vba-tools", zone: ownerZone, formToken },
    });
    answer = { status: response.status(), body: await response.text() };
    expect(answer.body).not.toContain('"too_fast"');
  }).toPass({ timeout: 15_000 });
  expect(answer.status, answer.body).toBe(201);
}

/** What a page says when the address may not book now, whatever the reason: its mailbox is told why. */
const notBooked = "This time was not booked for this address. We have sent the reason to it.";
const toldWhy = (email: string) =>
  smtp.waitFor(() =>
    smtp.to(email).some((mail) => mail.parsed.subject?.endsWith("was not booked")),
  );

async function fillDetails(page: Page, email: string) {
  await page.getByRole("textbox", { name: "Your name" }).fill("Meera Iyer");
  await page.getByRole("textbox", { name: "Your email" }).fill(email);
  await page
    .getByRole("textbox", { name: "What would you like to discuss?" })
    .fill("Our pump module's DFMEA has grown past 400 lines; I would like a second opinion.");
}

test("with JavaScript a reader books from /services in their own zone, is told of a clash, and cancels from the mail", async ({
  visitor,
}) => {
  // Two bookings, a clash and a cancellation, each waiting on its mail: longer than most.
  test.slow();
  const email = "meera.js@example.org";
  const page = await visitor({ timezoneId: "Europe/London" });
  await page.goto(`${site.siteUrl}/services`);
  await page.getByRole("link", { name: "Book a call" }).click();
  await expect(page).toHaveURL(`${site.siteUrl}/book`);
  await expect(page.getByRole("heading", { name: "Book a call", level: 1 })).toBeVisible();
  // Once the page has loaded the times are the browser's zone, whatever the engineer's;
  // the island takes the form's place at the reader's first move.
  const zone = page.getByRole("combobox", { name: "Time zone" });
  await expect(zone).toHaveValue("Europe/London", { timeout: 15_000 });
  await expect(page.getByRole("group", { name: "Free times, in Europe / London" })).toBeVisible();
  // A pointer moving, as a reader's does: the first event a page gets has no movement to tell.
  await page.mouse.move(10, 10, { steps: 2 });
  await expect(page.locator("#booking-form-html")).toHaveCount(0, { timeout: 15_000 });
  await expect(zone).toHaveValue("Europe/London");
  // How long the call the service pages offer is, and the engineer's clock, under the zone.
  await expect(zone).toHaveAccessibleDescription(
    "A call is 30 minutes, free. My time zone is Asia / Kolkata.",
  );
  // The note is the one field a reader may leave empty, and the form says so.
  await expect(
    page.getByRole("textbox", { name: "What would you like to discuss? (optional)", exact: true }),
  ).toBeVisible();
  // The whole page as the island shows it: the zone, a week of free times, the form.
  expect(await seriousViolations(page)).toEqual([]);

  const days = page.getByRole("group", { name: /^\w+day \d+ \w+ \d{4}$/ });
  // "Show more days" from the keyboard: as without JavaScript, the reader goes on from
  // the first day added, its first time focused, not from the button below the new week.
  await expect(days).toHaveCount(7);
  await page.getByRole("button", { name: "Show more days" }).focus();
  await page.keyboard.press("Enter");
  await expect(days).toHaveCount(14);
  await expect(days.nth(7).getByRole("radio").first()).toBeFocused();
  const first = days.first().getByRole("radio").first();
  const label = localTime((await first.getAttribute("value")) ?? "", "Europe/London");
  await expect(first).toHaveAccessibleName(label);
  // The time chosen is the second day's first: the first day's first may pass the notice
  // (24 hours ahead) while the test runs, and be refused as too soon.
  const chosen = days.nth(1).getByRole("radio").first();
  const taken = (await chosen.getAttribute("value")) ?? "";
  // Sent without a time, the form says so, beside the times too.
  await fillDetails(page, email);
  await page.getByRole("combobox", { name: "Service" }).selectOption("dfmea");
  await page.getByRole("button", { name: "Book this time" }).click();
  await expect(page.getByRole("alert")).toHaveText("Choose one of the free times.");
  // The focus goes where the fix is: the first time listed.
  await expect(first).toBeFocused();
  await expect(
    page.getByRole("group", { name: "Free times, in Europe / London" }),
  ).toHaveAccessibleDescription("Choose one of the free times.");
  await chosen.check();
  // An address the server refuses: the focus goes to its field, which says why.
  const address = page.getByRole("textbox", { name: "Your email" });
  await address.fill("meera@example");
  await page.getByRole("button", { name: "Book this time" }).click();
  await expect(address).toBeFocused();
  await expect(address).toHaveAccessibleDescription("Enter a valid email address.");
  await address.fill(email);

  await takeMeanwhile(page, taken, "arjun.first@example.org");

  // The refusal carries the free times left: the island shows them without asking again.
  const asked: string[] = [];
  page.on("request", (request) => {
    if (request.url().includes("/api/bookings/slots")) asked.push(request.url());
  });
  await page.getByRole("button", { name: "Book this time" }).click();
  await expect(page.getByRole("alert")).toContainText("That time was just taken");
  await expect(page.locator(`input[value="${taken}"]`)).toHaveCount(0);
  expect(asked).toEqual([]);
  // The focus goes where the fix is: the first free time of that day (or the next day's).
  const second = days.nth(1).getByRole("radio").first();
  await expect(second).toBeFocused();
  const start = (await second.getAttribute("value")) ?? "";
  await second.check();
  await page.getByRole("button", { name: "Book this time" }).click();
  const booked = page.getByRole("status").filter({ hasText: "You're booked" });
  await expect(booked).toBeVisible();
  // The time in both zones: London's for the reader, India's for the engineer.
  await expect(booked).toContainText("(Europe / London,");
  await expect(booked).toContainText("(Asia / Kolkata, GMT+5:30) for me");
  await expect(page.getByText("Choose a time that suits you below")).toBeHidden();
  // The answer where the form was (the page with its form is checked above).
  expect(await seriousViolations(page, "#booking-live")).toEqual([]);

  const { reader } = await mailsFor(email, start, "REQUEST");
  // The call is in their calendar once they accept the invitation, not before: the mail says so.
  expect(reader?.parsed.text).toContain(
    "You're booked. Accept the invitation attached to put the call in your calendar:",
  );
  const cancelLink = /https?:\/\/\S+\/book\/cancel\?token=[A-Za-z0-9_-]{43}/.exec(
    reader?.parsed.text ?? "",
  )?.[0];
  expect(cancelLink).toBeDefined();
  expect(await freeStarts(page)).not.toContain(start);

  // Within the hour the address may not book again: the page says so, in words that tell
  // nothing of what the address holds, the time chosen kept and still free.
  const again = await visitor({ timezoneId: "Europe/London" });
  await again.goto(`${site.siteUrl}/book`);
  await expect(again.getByRole("combobox", { name: "Time zone" })).toHaveValue("Europe/London", {
    timeout: 15_000,
  });
  await again.mouse.move(10, 10, { steps: 2 });
  await expect(again.locator("#booking-form-html")).toHaveCount(0, { timeout: 15_000 });
  const other = again
    .getByRole("group", { name: /^\w+day \d+ \w+ \d{4}$/ })
    .nth(1)
    .getByRole("radio")
    .first();
  const otherStart = (await other.getAttribute("value")) ?? "";
  await other.check();
  await fillDetails(again, email);
  await again.getByRole("combobox", { name: "Service" }).selectOption("dfmea");
  await again.getByRole("button", { name: "Book this time" }).click();
  await expect(again.getByRole("alert")).toHaveText(notBooked);
  await expect(other).toBeChecked();
  expect(await freeStarts(again)).toContain(otherStart);
  await toldWhy(email);
  await again.context().close();

  // The mail's link opens a page that asks; its button cancels, and the time is free again.
  await page.goto(cancelLink ?? "");
  await expect(page.getByRole("heading", { name: "Cancel your call?" })).toBeVisible();
  expect(await seriousViolations(page)).toEqual([]);
  await page.getByRole("button", { name: "Cancel the call" }).click();
  await expect(page.getByRole("heading", { name: "Your call is cancelled" })).toBeVisible();
  expect(await seriousViolations(page)).toEqual([]);
  expect(await freeStarts(page)).toContain(start);
  // Both calendars are sent the cancellation of that call.
  await mailsFor(email, start, "CANCEL");
});

test("a reader who only looks sees the times in their own zone, with no framework loaded, and nothing on the page moves", async ({
  visitor,
}) => {
  const page = await visitor({ timezoneId: "America/New_York" });
  const scripts: string[] = [];
  page.on("request", (request) => {
    if (request.resourceType() === "script" || request.url().includes("/api/")) {
      scripts.push(request.url());
    }
  });
  await page.goto(`${site.siteUrl}/book`);
  const zone = page.getByRole("combobox", { name: "Time zone" });
  await expect(zone).toHaveValue("America/New_York", { timeout: 15_000 });
  // A pointer resting over the page: Chromium sends it a pointermove that does not move
  // whenever the layout under it changes, as after the page's load. That is not a move.
  await page.mouse.move(0, 0);
  const times = page.getByRole("group", { name: "Free times, in America / New York" });
  await expect(times).toBeVisible();
  // Each time named by the reader's clock, by the server's list for that zone.
  const first = times.getByRole("radio").first();
  const label = localTime((await first.getAttribute("value")) ?? "", "America/New_York");
  await expect(first).toHaveAccessibleName(label);
  await expect(page.getByRole("group", { name: /^\w+day \d+ \w+ \d{4}$/ })).toHaveCount(7);
  // The server's form in place, the island not yet live: no script fetched, no API asked.
  await expect(page.locator("#booking-form-html")).toHaveCount(1);
  expect(scripts.filter((url) => !url.includes("/api/readers/"))).toEqual([]);

  // The space between the times and the fields under them, the same in both forms.
  const more = page
    .getByRole("button", { name: "Show more days" })
    .or(page.getByRole("link", { name: "Show more days" }));
  const space = async () =>
    (await page.getByText("Your name", { exact: true }).boundingBox())!.y -
    ((await more.boundingBox())!.y + (await more.boundingBox())!.height);
  const served = await space();
  expect(served).toBeGreaterThanOrEqual(16);
  // And where the times begin on the page: the island's zone select and its note take the served ones' room.
  const top = () => times.evaluate((group) => group.getBoundingClientRect().top + window.scrollY);
  const servedTop = await top();

  // The reader's first move brings the island, which keeps the zone, the list and what is typed.
  await page.getByRole("textbox", { name: "Your name" }).pressSequentially("Meera Iyer");
  await expect(page.locator("#booking-form-html")).toHaveCount(0, { timeout: 15_000 });
  await expect(zone).toHaveValue("America/New_York");
  await expect(page.getByRole("textbox", { name: "Your name" })).toHaveValue("Meera Iyer");
  await expect(page.getByRole("group", { name: /^\w+day \d+ \w+ \d{4}$/ })).toHaveCount(7);
  // Nothing moved from the first paint to the island's form: no layout shift at all,
  // each named by what moved, from where to where, should one come.
  const shifts = await page.evaluate(
    () =>
      new Promise<string[]>((resolve) => {
        type Shift = PerformanceEntry & {
          value: number;
          sources: {
            node: Node | null;
            previousRect: DOMRectReadOnly;
            currentRect: DOMRectReadOnly;
          }[];
        };
        const rect = ({ x, y, width, height }: DOMRectReadOnly) => `${x},${y} ${width}×${height}`;
        const seen: string[] = [];
        new PerformanceObserver((list) => {
          for (const entry of list.getEntries() as Shift[]) {
            const moved = entry.sources.map(({ node, previousRect, currentRect }) => {
              const element = node instanceof Element ? node : node?.parentElement;
              const name = element ? `${element.tagName}#${element.id}.${element.className}` : "?";
              return `${name} "${(node?.textContent ?? "").slice(0, 40)}" ${rect(previousRect)} → ${rect(currentRect)}`;
            });
            seen.push(`${entry.value} at ${Math.round(entry.startTime)} ms: ${moved.join("; ")}`);
          }
        }).observe({ type: "layout-shift", buffered: true });
        requestAnimationFrame(() => setTimeout(() => resolve(seen), 100));
      }),
  );
  expect(shifts).toEqual([]);
  expect(await space()).toBe(served);
  expect(await top()).toBe(servedTop);
});

/**
 * Holds the page's first request whose address `matches` until `release()`; `asked` resolves
 * with that address once the page has made it, `settled` once its answer has come or the page
 * has given up on it.
 */
async function holdFirst(page: Page, matches: (url: URL) => boolean) {
  let release = () => {};
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  let asked: (url: URL) => void = () => {};
  const made = new Promise<URL>((resolve) => {
    asked = resolve;
  });
  const settled = new Promise<void>((resolve) => {
    const settle = (request: Request) => {
      if (matches(new URL(request.url()))) resolve();
    };
    page.on("requestfinished", settle);
    page.on("requestfailed", settle);
  });
  await page.route(
    matches,
    async (route) => {
      asked(new URL(route.request().url()));
      await released;
      // The page may have given up on it meanwhile.
      await route.continue().catch(() => {});
    },
    { times: 1 },
  );
  return { asked: made, release, settled };
}

test("a reader who scrolled to the fields before their zone's times came keeps them in place as the island brings those times", async ({
  visitor,
}) => {
  // A phone's width: a week of times in India's hours and in New York's differ by hundreds of pixels.
  const page = await visitor({
    timezoneId: "America/New_York",
    viewport: { width: 360, height: 800 },
  });
  // The page's script is slow to put the reader's zone in: the island, at the first scroll, does.
  const script = await holdFirst(page, (url) => url.pathname === "/book/times");
  const island = await holdFirst(page, (url) => url.pathname === "/api/bookings/slots");
  await page.goto(`${site.siteUrl}/book`);
  await script.asked;
  await expect(page.getByRole("group", { name: "Free times, in Asia / Kolkata" })).toBeVisible();
  const name = page.getByRole("textbox", { name: "Your name" });
  await name.scrollIntoViewIfNeeded();
  await island.asked;
  const before = (await name.boundingBox())?.y;
  island.release();
  await expect(page.locator("#booking-form-html")).toHaveCount(0, { timeout: 15_000 });
  await expect(page.getByRole("group", { name: "Free times, in America / New York" })).toHaveCount(
    1,
  );
  // The list above changed; the field the reader was about to fill did not move.
  expect((await name.boundingBox())?.y).toBe(before);
  script.release();
});

test("on a phone, the booked call's panel names a long address within the screen", async ({
  visitor,
}) => {
  const page = await visitor({ viewport: { width: 360, height: 800 } });
  await page.goto(`${site.siteUrl}/book`);
  await page.mouse.move(10, 10, { steps: 2 });
  await expect(page.locator("#booking-form-html")).toHaveCount(0, { timeout: 15_000 });
  // A work address with no hyphen: its dots and "@" are no place to break a line.
  const email = "priya.raman.procurement@ramanmotorsinternational.co.uk";
  await page
    .getByRole("group", { name: /^\w+day \d+ \w+ \d{4}$/ })
    .nth(2)
    .getByRole("radio")
    .first()
    .check();
  await fillDetails(page, email);
  await page.getByRole("combobox", { name: "Service" }).selectOption("dfmea");
  await page.getByRole("button", { name: "Book this time" }).click();
  const booked = page.getByRole("status").filter({ hasText: "You're booked" });
  await expect(booked).toContainText(email, { timeout: 15_000 });
  expect(await booked.evaluate((box) => box.scrollWidth - box.clientWidth)).toBe(0);
  expect(
    await page.evaluate(
      () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
    ),
  ).toBe(0);
});

test("a reader on the keyboard keeps the focus on their time when the page puts the times in their zone", async ({
  visitor,
}) => {
  const page = await visitor({ timezoneId: "America/New_York" });
  // The island held back, so the page's script is what puts the reader's zone in.
  const island = await holdFirst(page, (url) => url.pathname === "/api/bookings/slots");
  const script = await holdFirst(page, (url) => url.pathname === "/book/times");
  await page.goto(`${site.siteUrl}/book`);
  await script.asked;
  const served = page.getByRole("group", { name: "Free times, in Asia / Kolkata" });
  const time = served.getByRole("radio").nth(3);
  const instant = (await time.getAttribute("value")) ?? "";
  await time.focus();
  script.release();
  await expect(
    page.getByRole("group", { name: "Free times, in America / New York" }),
  ).toBeVisible();
  await expect(page.locator("#booking-form-html")).toHaveCount(1);
  await expect(page.locator(`input[value="${instant}"]`)).toBeFocused();
  island.release();
});

test("the zone the reader picks last wins: over the page's first times, still on their way, and over the island's", async ({
  visitor,
}) => {
  // A booking, waiting on its mail.
  test.slow();
  const email = "meera.zone@example.org";
  const page = await visitor({ timezoneId: "America/New_York" });
  // The page's first request for free times, in the browser's zone, held until the reader picks.
  const script = await holdFirst(page, (url) => url.pathname === "/book/times");
  await page.goto(`${site.siteUrl}/book`);
  const zone = page.getByRole("combobox", { name: "Time zone" });
  expect((await script.asked).searchParams.get("zone")).toBe("America/New_York");
  // Picked without pressing "Show times": the server's form still lists the engineer's times.
  await zone.selectOption("Europe/London");
  script.release();
  await script.settled;
  await expect(zone).toHaveValue("Europe/London");
  await expect(page.getByRole("group", { name: "Free times, in America / New York" })).toHaveCount(
    0,
  );

  // The reader's first move brings the island, which asks for the zone picked; while its
  // answer is on the way the reader picks another, in the server's form still in place.
  const island = await holdFirst(page, (url) => url.pathname === "/api/bookings/slots");
  await page.mouse.move(10, 10, { steps: 2 });
  expect((await island.asked).searchParams.get("zone")).toBe("Europe/London");
  await expect(page.locator("#booking-form-html")).toHaveCount(1);
  await zone.selectOption("Asia/Tokyo");
  island.release();
  await expect(page.locator("#booking-form-html")).toHaveCount(0, { timeout: 15_000 });
  await expect(zone).toHaveValue("Asia/Tokyo");
  const times = page.getByRole("group", { name: "Free times, in Asia / Tokyo" });
  await expect(times).toBeVisible();

  // Booked in that zone: the times, the confirmation and the mail. The fourth time, an
  // hour and a half or more past the first, which may pass the notice while the test runs.
  const first = times.getByRole("radio").nth(3);
  const start = (await first.getAttribute("value")) ?? "";
  const label = localTime(start, "Asia/Tokyo");
  await expect(first).toHaveAccessibleName(label);
  await first.check();
  await fillDetails(page, email);
  await page.getByRole("combobox", { name: "Service" }).selectOption("dfmea");
  await page.getByRole("button", { name: "Book this time" }).click();
  const booked = page.getByRole("status").filter({ hasText: "You're booked" });
  await expect(booked).toContainText("(Asia / Tokyo,");
  const { reader } = await mailsFor(email, start, "REQUEST");
  expect(reader?.parsed.text).toContain("(Asia / Tokyo,");
});

test("without JavaScript the zone is chosen with the select, the form posts, the server's page says the call is booked, and the mail's links move and cancel it", async ({
  visitor,
}) => {
  // A clash, a booking, a move and a cancellation, each waiting on its mail.
  test.slow();
  const email = "meera.nojs@example.org";
  const page = await visitor({ javaScriptEnabled: false });
  // The posts this page sent: the server's log, read through a pipe, may hold them later.
  let sent = 0;
  page.on("request", (request) => {
    if (request.method() === "POST" && new URL(request.url()).pathname === "/book") sent += 1;
  });
  await page.goto(`${site.siteUrl}/services/dfmea`);
  await page.getByRole("link", { name: "Book a call" }).click();
  await expect(page).toHaveURL(`${site.siteUrl}/book?service=dfmea`);
  await expect(page.getByRole("heading", { name: "Book a call", level: 1 })).toBeVisible();
  // The engineer's zone until the reader chooses theirs.
  await expect(page.getByRole("combobox", { name: "Time zone" })).toHaveValue(ownerZone);
  await expect(page.getByRole("combobox", { name: "Time zone" })).toHaveAccessibleDescription(
    "A call is 30 minutes, free. My time zone is Asia / Kolkata.",
  );
  await expect(
    page.getByRole("textbox", { name: "What would you like to discuss? (optional)", exact: true }),
  ).toBeVisible();
  await page.getByRole("combobox", { name: "Time zone" }).selectOption("America/New_York");
  await page.getByRole("button", { name: "Show times" }).click();
  await expect(page).toHaveURL(/zone=America%2FNew_York/);
  await expect(
    page.getByRole("group", { name: "Free times, in America / New York" }),
  ).toBeVisible();
  await expect(page.getByRole("combobox", { name: "Service" })).toHaveValue("dfmea");
  // A week of days, and a link to a week more, the zone and service kept.
  const days = page.getByRole("group", { name: /^\w+day \d+ \w+ \d{4}$/ });
  await expect(days).toHaveCount(7);
  await page.getByRole("link", { name: "Show more days" }).click();
  await expect(days).toHaveCount(14);
  // The reader goes on from the first day added: the next key reaches its first time.
  await page.keyboard.press("Tab");
  await expect(days.nth(7).getByRole("radio").first()).toBeFocused();
  await expect(page.getByRole("combobox", { name: "Service" })).toHaveValue("dfmea");
  await expect(
    page.getByRole("group", { name: "Free times, in America / New York" }),
  ).toBeVisible();
  // axe runs as a script in the page: the server's page with its list, opened where
  // scripts run but the site's own files are not fetched, so no island takes its place.
  const checked = await visitor();
  await checked.route("**/*.js", (route) => route.abort());
  await checked.goto(page.url());
  await expect(
    checked.getByRole("group", { name: "Free times, in America / New York" }),
  ).toBeVisible();
  expect(await seriousViolations(checked)).toEqual([]);
  await checked.context().close();

  const slot = page
    .getByRole("group", { name: /^\w+day \d+ \w+ \d{4}$/ })
    .last()
    .getByRole("radio")
    .last();
  const taken = (await slot.getAttribute("value")) ?? "";
  await slot.check();
  await fillDetails(page, email);
  // An address the server refuses: the page again, with the field marked, saying why, focused.
  const address = page.getByRole("textbox", { name: "Your email" });
  await address.fill("meera@example");
  await page.getByRole("button", { name: "Book this time" }).click();
  await expect(address).toBeFocused();
  await expect(address).toHaveAccessibleDescription("Enter a valid email address.");
  await expect(address).toHaveAttribute("aria-invalid", "true");
  await expect(slot).toBeChecked();
  await address.fill(email);
  await takeMeanwhile(page, taken, "arjun.second@example.org");
  // The form counts only once a person could have filled it; a press sooner is
  // answered with the form again, as it was filled, and a new signed time.
  await expect(async () => {
    await page.getByRole("button", { name: "Book this time" }).click();
    await expect(page.getByRole("alert")).toContainText("That time was just taken", {
      timeout: 2000,
    });
  }).toPass({ timeout: 30_000 });
  // A reload of that refusal sends the spent form again: nothing is booked, and the page
  // says so in words that fit a refusal as well as a booking.
  const sentAgain =
    "This form was sent already: if it booked your call, the invitation is on its way to your inbox. If it did not, or to book another, choose a time and press Book this time.";
  await page.reload();
  await expect(page.getByRole("alert")).toHaveText(sentAgain);
  // The page again: the free times now, what was typed kept, another time to choose.
  await expect(page.locator(`input[value="${taken}"]`)).toHaveCount(0);
  await expect(page.getByRole("textbox", { name: "Your email" })).toHaveValue(email);
  const start = (await slot.getAttribute("value")) ?? "";
  expect(start).not.toBe(taken);
  await slot.check();
  await expect(async () => {
    await page.getByRole("button", { name: "Book this time" }).click();
    await expect(page.getByRole("heading", { name: "You're booked" })).toBeVisible({
      timeout: 2000,
    });
  }).toPass({ timeout: 30_000 });
  await expect(page.getByRole("status")).toContainText("(America / New York,");
  // The page no longer invites a choice it does not offer.
  await expect(page.getByText("Choose a time that suits you below")).toBeHidden();
  await expect(page.getByRole("link", { name: "Send an enquiry" }).first()).toBeVisible();
  // Back and Forward show the answers as they were, from the browser's own history,
  // nothing posted again: the form as it was sent, then "You're booked".
  const posts = () =>
    site.logs.filter((line) => line.req?.method === "POST" && line.req.url === "/book");
  await site.waitForLog(() => posts().length >= sent);
  const before = posts().length;
  await page.goBack();
  await expect(page.getByRole("textbox", { name: "Your email" })).toHaveValue(email);
  await page.goForward();
  await expect(page.getByRole("heading", { name: "You're booked" })).toBeVisible();
  // A reload sends the post again: it says the form went, and that the call may be booked.
  await page.reload();
  await expect(page.getByRole("alert")).toHaveText(sentAgain);
  // The log has each post in turn: the reload's is the first since the booking.
  await site.waitForLog(() => posts().length > before);
  expect(posts().length).toBe(before + 1);

  // Both calendars are sent the invitation, at the time chosen.
  const mails = await mailsFor(email, start, "REQUEST");
  expect(mails.owner?.parsed.replyTo?.value[0]?.address).toBe(email);
  const linkIn = (mail: ReceivedMail | undefined, action: "cancel" | "reschedule") =>
    new RegExp(`https?://\\S+/book/${action}\\?token=[A-Za-z0-9_-]{43}`).exec(
      mail?.parsed.text ?? "",
    )?.[0] ?? "";

  // The mail's other link moves the call: a page of free times that asks first.
  // axe runs as a script, so these two pages are read where scripts run; the
  // server writes them whole, with no island, exactly as a reader without JavaScript gets them.
  const mover = await visitor();
  await mover.goto(linkIn(mails.reader, "reschedule"));
  await expect(mover.getByRole("heading", { name: "Move your call", level: 1 })).toBeVisible();
  expect(await seriousViolations(mover)).toEqual([]);
  // On a phone each time's button sits on its line beside its time, never wrapped apart from it.
  const phone = await visitor({ viewport: { width: 360, height: 800 }, javaScriptEnabled: false });
  await phone.goto(linkIn(mails.reader, "reschedule"));
  const apart = await phone.locator("label:has(> input[type=radio])").evaluateAll((labels) =>
    labels
      .filter((label) => {
        const radio = label.querySelector("input")?.getBoundingClientRect();
        const time = label.querySelector("span")?.getBoundingClientRect();
        return !radio || !time || radio.bottom < time.top || radio.top > time.bottom;
      })
      .map((label) => label.textContent),
  );
  expect(apart).toHaveLength(0);
  // The call's zone keeps its offset whole ("GMT-5"), however narrow the line that wraps it.
  const split = await phone.getByText(/^Your call is on /).evaluate((line) => {
    const text = line.firstChild as Text;
    const range = document.createRange();
    const at = text.data.indexOf("GMT");
    range.setStart(text, at);
    range.setEnd(text, text.data.indexOf(")", at));
    const widths: number[] = [];
    for (let width = 340; width >= 120; width -= 2) {
      (line as HTMLElement).style.width = `${width}px`;
      const tops = new Set([...range.getClientRects()].map((rect) => Math.round(rect.top)));
      if (tops.size > 1) widths.push(width);
    }
    return widths;
  });
  expect(split).toEqual([]);
  await phone.context().close();
  // Sent with no time chosen (the browser's own check taken away), the page
  // comes back with its message, read as one alert.
  await mover.locator("input[type=radio]").evaluateAll((radios) => {
    for (const radio of radios) radio.removeAttribute("required");
  });
  await mover.getByRole("button", { name: "Move the call" }).click();
  await expect(mover.getByRole("alert")).toHaveText("Choose one of the free times.");
  expect(await seriousViolations(mover)).toEqual([]);
  // The refusal has an address of its own: from the next page, Back lands on it as it was.
  await mover.getByRole("combobox", { name: "Time zone" }).selectOption("Europe/Berlin");
  await mover.getByRole("button", { name: "Show times" }).click();
  await expect(mover.getByRole("group", { name: "Free times, in Europe / Berlin" })).toBeVisible();
  await mover.goBack();
  await expect(mover.getByRole("alert")).toHaveText("Choose one of the free times.");
  await expect(mover.getByRole("heading", { name: "Move your call", level: 1 })).toBeVisible();
  const to = mover.getByRole("radio").first();
  const moved = (await to.getAttribute("value")) ?? "";
  await to.check();
  await mover.getByRole("button", { name: "Move the call" }).click();
  await expect(mover.getByRole("heading", { name: "Your call is moved" })).toBeVisible();
  expect(await seriousViolations(mover)).toEqual([]);
  await mover.context().close();

  // The moved call's mail brings new links; its cancel link works without JavaScript.
  const after = await mailsFor(email, moved, "REQUEST");
  await page.goto(linkIn(after.reader, "cancel"));
  await expect(page.getByRole("heading", { name: "Cancel your call?" })).toBeVisible();
  await page.getByRole("button", { name: "Cancel the call" }).click();
  await expect(page.getByRole("heading", { name: "Your call is cancelled" })).toBeVisible();
  // Back from "Book another time" shows it again, not "This link has been used".
  await page.getByRole("link", { name: "Book another time" }).click();
  await expect(page.getByRole("heading", { name: "Book a call", level: 1 })).toBeVisible();
  await page.goBack();
  await expect(page.getByRole("heading", { name: "Your call is cancelled" })).toBeVisible();
  expect(await freeStarts(page)).toContain(moved);
  await mailsFor(email, moved, "CANCEL");

  // Within the hour of its booking the address may not book again: the form again, saying so
  // in words that tell nothing of what the address holds, what was typed and the time kept.
  const again = await visitor({ javaScriptEnabled: false });
  await again.goto(`${site.siteUrl}/book`);
  const other = again.getByRole("radio").first();
  const otherStart = (await other.getAttribute("value")) ?? "";
  await other.check();
  await fillDetails(again, email);
  await again.getByRole("combobox", { name: "Service" }).selectOption("dfmea");
  await expect(async () => {
    await again.getByRole("button", { name: "Book this time" }).click();
    await expect(again.getByRole("alert")).toHaveText(notBooked, { timeout: 2000 });
  }).toPass({ timeout: 30_000 });
  await expect(again.locator(`input[value="${otherStart}"]`)).toBeChecked();
  await expect(again.getByRole("textbox", { name: "Your email" })).toHaveValue(email);
  expect(await freeStarts(again)).toContain(otherStart);
  await toldWhy(email);
  await again.context().close();
});

test("without JavaScript the press after 'Did you mean …?' books at once: the page keeps the form's time", async ({
  visitor,
}) => {
  const page = await visitor({ javaScriptEnabled: false });
  await page.goto(`${site.siteUrl}/book?service=dfmea`);
  const token = page.locator("form.booking-form input[name=formToken]");
  const handedOut = (await token.getAttribute("value")) ?? "";
  await page.getByRole("radio").nth(2).check();
  await fillDetails(page, "arjun.nojs@gmial.com");
  // The first press no sooner than a person's: the form's signed time has passed its minimum.
  const minimumMs = Number(siteEnv.COMMENT_MIN_SECONDS) * 1000;
  await expect
    .poll(() => Date.now() - Number(handedOut.split(".")[0]))
    .toBeGreaterThan(minimumMs + 100);
  await page.getByRole("button", { name: "Book this time" }).click();
  await expect(page.getByRole("status")).toContainText("Did you mean arjun.nojs@gmail.com?");
  // The page carries the form's time on: pressed again as soon as it is read, it books.
  await expect(token).toHaveAttribute("value", handedOut);
  await page.getByRole("button", { name: "Book this time" }).click();
  await expect(page.getByRole("heading", { name: "You're booked" })).toBeVisible();
  await page.context().close();
});

test("the first call's length and whether it is free are the owner's one setting, which /book and every service page say", async ({
  visitor,
}) => {
  const reader = await visitor({ javaScriptEnabled: false });
  /** What the service page says of its first call, and what /book says under the zone. */
  const said = async () => {
    await reader.goto(`${site.siteUrl}/services/dfmea`);
    const step = reader.getByRole("listitem").filter({ hasText: /^A first call/ });
    const service = (await step.innerText()).split(" on the product")[0];
    await reader.goto(`${site.siteUrl}/book`);
    const book = await reader.locator("#booking-zone-note").innerText();
    return { service, book };
  };
  expect(await said()).toEqual({
    service: "A first call (30 minutes, free)",
    book: "A call is 30 minutes, free. My time zone is Asia / Kolkata.",
  });

  // The owner makes the call 45 minutes and no longer free, in the console's Bookings hours.
  const owner = await ownerPage(visitor, site, "/admin/bookings");
  const length = owner.getByLabel("Call length (minutes)");
  const free = owner.getByRole("checkbox", { name: "The first call is free" });
  const save = async () => {
    const saved = owner.waitForResponse((response) => response.request().method() === "PUT");
    await owner.getByRole("button", { name: "Save availability" }).click();
    expect((await saved).ok()).toBe(true);
  };
  await expect(free).toBeChecked();
  await length.fill("45");
  await free.uncheck();
  await save();
  try {
    expect(await said()).toEqual({
      service: "A first call (45 minutes)",
      book: "A call is 45 minutes. My time zone is Asia / Kolkata.",
    });
  } finally {
    await length.fill("30");
    await free.check();
    await save();
  }
  expect((await said()).service).toBe("A first call (30 minutes, free)");
});

test("the calendar feed by keyboard: its address comes selected, a new one is asked for first and stops the old, and a stale sign-in is asked for again", async ({
  visitor,
}) => {
  const owner = await visitor();
  await signInWith(owner, ownerCli(site, "login").trim());
  await owner.getByRole("link", { name: "Bookings" }).click();
  const panel = owner.getByRole("region", { name: "Calendar feed" });
  await panel.getByRole("button", { name: "Make an address" }).press("Enter");
  // The address takes the focus, selected: Ctrl+C copies it, and a screen reader reads it.
  const field = panel.getByRole("textbox", { name: "Calendar feed address" });
  await expect(field).toBeFocused();
  const first = await field.inputValue();
  expect(await field.evaluate((e: HTMLInputElement) => [e.selectionStart, e.selectionEnd])).toEqual(
    [0, first.length],
  );
  expect((await owner.request.get(first)).status()).toBe(200);

  // A new address stops the one calendars subscribe to: asked first, and kept by Escape.
  const again = panel.getByRole("button", { name: "New address" });
  await again.press("Enter");
  const dialog = owner.getByRole("alertdialog", { name: "Make a new calendar feed address?" });
  await expect(dialog).toBeVisible();
  expect(await seriousViolations(owner)).toEqual([]);
  await owner.keyboard.press("Escape");
  await expect(again).toBeFocused();
  await expect(field).toHaveValue(first);
  await again.press("Enter");
  await dialog.getByRole("button", { name: "Make a new address" }).press("Enter");
  await expect(field).not.toHaveValue(first);
  await expect(field).toBeFocused();
  const second = await field.inputValue();
  expect((await owner.request.get(first)).status()).toBe(404);
  expect((await owner.request.get(second)).status()).toBe(200);

  // Eleven minutes after signing in (this session is the newest), a new address asks for a fresh sign-in.
  const db = new DatabaseSync(path.join(site.dataDir, "engage.sqlite"));
  db.prepare(
    "update owner_sessions set created_at = ? where created_at = (select max(created_at) from owner_sessions)",
  ).run(new Date(Date.now() - 11 * 60_000).toISOString());
  db.close();
  await owner.reload();
  await panel.getByRole("button", { name: "New address" }).click();
  await owner.getByRole("button", { name: "Make a new address" }).click();
  await expect(panel.getByRole("alert")).toContainText(
    "needs a sign-in within the last 10 minutes",
  );
  expect((await owner.request.get(second)).status()).toBe(200);
  await panel.getByRole("link", { name: "Sign in again" }).click();
  await owner.goto(ownerCli(site, "login").trim());
  await owner.getByRole("button", { name: "Sign in", exact: true }).click();
  await expect(owner.getByRole("heading", { name: "Bookings", level: 1 })).toBeVisible();
});
