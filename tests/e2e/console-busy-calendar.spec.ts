import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { bookingsResponseSchema, slotsResponseSchema } from "../../contract/bookings.ts";
import { dayLabel, timeLabel, wallTime } from "../../contract/time-zones.ts";
import { seriousViolations } from "./support/axe.ts";
import { expect, test } from "./support/fixtures.ts";
import { type OwnSite, ownerCli, ownerPage, startOwnSite } from "./support/own-site.ts";

/*
 * The owner's move beside their own calendar (docs/console.md, "Bookings"): a site of its
 * own reads the owner's calendar from a stand-in on loopback, with one meeting; the Move
 * dialog says "busy" beside the times that meet it, in words and not in colour alone, and
 * the owner may still choose one; Health counts an event whose repeats could not be expanded.
 * With no free time at all, the dialog says why and offers only the way out.
 */

test.describe.configure({ mode: "serial" });

let own: OwnSite;
let calendar: Server;
const day = 86_400_000;

/** 14:00 UTC on the first weekday at least two days ahead: the meeting, an hour long. */
function meetingStart(): number {
  for (let ahead = 2; ; ahead += 1) {
    const date = wallTime(Date.now() + ahead * day, "UTC");
    if (date.weekday >= 1 && date.weekday <= 5) {
      return Date.UTC(date.year, date.month - 1, date.day, 14);
    }
  }
}
const meeting = meetingStart();
const icsUtc = (instant: number) => new Date(instant).toISOString().replace(/[-:]|\.\d+/g, "");

test.beforeAll(async () => {
  const file = [
    "BEGIN:VCALENDAR",
    "VERSION:2.0",
    "BEGIN:VEVENT",
    "UID:meeting",
    `DTSTART:${icsUtc(meeting)}`,
    `DTEND:${icsUtc(meeting + 3_600_000)}`,
    "SUMMARY:Board review",
    "END:VEVENT",
    // A rule that names no day (30 February): skipped, and said on Health.
    "BEGIN:VEVENT",
    "UID:thirtieth",
    "DTSTART:20200101T090000Z",
    "DTEND:20200101T100000Z",
    "RRULE:FREQ=DAILY;BYMONTH=2;BYMONTHDAY=30",
    "SUMMARY:Leap-day dinner",
    "END:VEVENT",
    "END:VCALENDAR",
  ].join("\r\n");
  calendar = createServer((_request, response) =>
    response.writeHead(200, { "content-type": "text/calendar" }).end(file),
  );
  await new Promise<void>((resolve) => calendar.listen(0, "127.0.0.1", resolve));
  const { port } = calendar.address() as AddressInfo;
  own = await startOwnSite("busy-calendar", {
    host: "localhost",
    env: {
      BOOKING_TIMEZONE: "UTC",
      BOOKING_BUSY_CALENDAR_URL: `http://127.0.0.1:${port}/secret/basic.ics`,
      // The calendar on loopback, which only a test may read.
      NODE_ENV: "test",
      ALLOW_PRIVATE_ADDRESSES_IN_TESTS: "on",
    },
  });
});

test.afterAll(async () => {
  await own?.stop();
  calendar?.closeAllConnections();
  await new Promise<void>((resolve) => calendar?.close(() => resolve()));
});

test("the Move dialog says which times meet the owner's own calendar, and the owner may choose one", async ({
  visitor,
}) => {
  const site = own.siteUrl;
  const slots = async () =>
    slotsResponseSchema.parse(await (await fetch(`${site}/api/bookings/slots`)).json()).starts;
  // The readers are not offered the meeting's hour, once the calendar is read.
  const busyStarts = [meeting, meeting + 1_800_000].map((at) => new Date(at).toISOString());
  await expect.poll(async () => (await slots()).includes(busyStarts[0] ?? "")).toBe(false);
  const [start = ""] = await slots();
  const booked = await fetch(`${site}/api/bookings`, {
    method: "POST",
    headers: { origin: site, "content-type": "application/json" },
    body: JSON.stringify({
      start,
      name: "Kavya Menon",
      email: "kavya@example.org",
      service: "dfmea",
      zone: "Asia/Kolkata",
    }),
  });
  expect(booked.status).toBe(201);

  const page = await ownerPage(visitor, own, "/admin/bookings");
  const card = page.getByRole("article", { name: "Call with Kavya Menon" });
  await card.getByRole("button", { name: "Move the call with Kavya Menon" }).press("Enter");
  const dialog = page.getByRole("dialog", { name: "Move the call with Kavya Menon" });
  await expect(dialog).toContainText(
    "A time marked busy meets an event in your own calendar; you may still choose it.",
  );
  const meetingDay = dialog.getByRole("group", { name: dayLabel(meeting, "UTC") });
  // The word is part of each time's name, so a screen reader says it too.
  for (const at of [meeting, meeting + 1_800_000]) {
    await expect(
      meetingDay.getByRole("radio", { name: `${timeLabel(at, "UTC")} busy`, exact: true }),
    ).toBeVisible();
  }
  const after = meeting + 3_600_000;
  await expect(
    meetingDay.getByRole("radio", { name: timeLabel(after, "UTC"), exact: true }),
  ).toBeVisible();
  // Beside the time, in the dialog's own small text, and not a colour alone.
  const word = meetingDay.locator(".booking-slot-busy").first();
  await expect(word).toHaveText(" busy");
  expect(await seriousViolations(page, '[role="dialog"]')).toEqual([]);

  const chosen = meetingDay.getByRole("radio", { name: `${timeLabel(meeting, "UTC")} busy` });
  await chosen.focus();
  await page.keyboard.press("Space");
  await expect(chosen).toBeChecked();
  // A double click moves it once: the second press comes while the first is under way.
  const moves: string[] = [];
  page.on("request", (request) => {
    if (request.method() === "POST" && request.url().endsWith("/move")) moves.push(request.url());
  });
  await dialog.getByRole("button", { name: "Move the call" }).dblclick();
  await expect(page.getByText("Moved the call with Kavya Menon")).toBeVisible();
  await expect(dialog).toBeHidden();
  expect(moves).toHaveLength(1);
  const list = bookingsResponseSchema.parse(
    await (await page.request.get(`${site}/api/admin/bookings`)).json(),
  );
  expect(list.bookings.find((call) => call.name === "Kavya Menon")?.start).toBe(busyStarts[0]);
  // Nothing of the meeting but its time reaches the console.
  await expect(page.getByText("Board review")).toHaveCount(0);
});

test("Health says how many of the calendar's events were skipped, and nothing of them", async ({
  visitor,
}) => {
  const page = await ownerPage(visitor, own, "/admin/health");
  await expect(page.getByText(/1 event skipped: could not be expanded/)).toBeVisible();
  await expect(page.getByText("Leap-day dinner")).toHaveCount(0);
});

test("with no free time to move a call to, the Move dialog says why and offers nothing to send, by keyboard too", async ({
  visitor,
}) => {
  // Every weekday off: no time is free, not even for the owner, who may ignore the notice.
  const days = ["mon", "tue", "wed", "thu", "fri"];
  ownerCli(own, "bookings", "hours", ...days.flatMap((day) => [`--${day}`, "off"]));
  try {
    const moves: string[] = [];
    const page = await ownerPage(visitor, own, "/admin/bookings");
    page.on("request", (request) => {
      if (request.method() === "POST") moves.push(request.url());
    });
    const card = page.getByRole("article", { name: "Call with Kavya Menon" });
    const move = card.getByRole("button", { name: "Move the call with Kavya Menon" });
    await move.press("Enter");
    const dialog = page.getByRole("dialog", { name: "Move the call with Kavya Menon" });
    const why =
      /^No free time to move it to: every time within your hours, as far ahead as calls are booked, is taken or a date off\./;
    await expect(dialog.getByText(why)).toBeVisible();
    // Nothing to send: the way out alone, focused, and its description says why.
    const keep = dialog.getByRole("button", { name: "Keep the time" });
    await expect(keep).toBeFocused();
    await expect(keep).toHaveAccessibleDescription(why);
    await expect(dialog.getByRole("button")).toHaveCount(1);
    await expect(dialog.getByRole("radio")).toHaveCount(0);
    for (const key of ["Tab", "Shift+Tab"]) {
      await page.keyboard.press(key);
      await expect(keep).toBeFocused();
    }
    expect(await seriousViolations(page, '[role="dialog"]')).toEqual([]);
    // Escape closes it, and the focus goes back to Move; nothing was sent.
    await page.keyboard.press("Escape");
    await expect(dialog).toBeHidden();
    await expect(move).toBeFocused();
    // Opened again, Enter on the way out closes it too.
    await move.press("Enter");
    await expect(keep).toBeFocused();
    await page.keyboard.press("Enter");
    await expect(dialog).toBeHidden();
    await expect(move).toBeFocused();
    expect(moves).toEqual([]);
    // Times to choose again: the dialog offers the move, as before.
    ownerCli(own, "bookings", "hours", "--mon", "10:00-17:00");
    await move.press("Enter");
    await expect(dialog.getByRole("radio", { checked: true })).toBeFocused();
    await expect(dialog.getByRole("button", { name: "Move the call" })).toBeVisible();
    await expect(dialog.getByText(why)).toHaveCount(0);
    await page.keyboard.press("Escape");
  } finally {
    ownerCli(own, "bookings", "hours", ...days.flatMap((day) => [`--${day}`, "10:00-17:00"]));
  }
});
