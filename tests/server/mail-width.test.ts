import { type Browser, chromium } from "@playwright/test";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  cancellationMail,
  ownerInvitationMail,
  readerInvitationMail,
  reminderMail,
} from "../../server/bookings/mails.ts";
import { notMadeMail } from "../../server/bookings/not-made.ts";
import type { StoredBooking } from "../../server/bookings/stored.ts";
import { renderComment } from "../../server/comments/markdown.ts";
import { replyConfirmationMail, replyMail } from "../../server/comments/reply-mails.ts";
import { signInLinkMail } from "../../server/console/sign-in-mail.ts";
import { acknowledgementMail, answerMail, ownerNoticeMail } from "../../server/enquiries/mails.ts";
import type { StoredEnquiry } from "../../server/enquiries/repository.ts";
import { renderEdition } from "../../server/newsletter/editions.ts";
import { confirmationMail, editionMail } from "../../server/newsletter/messages.ts";
import { actionUrl, digestMail, noticeMail } from "../../server/notifications/messages.ts";
import type { OutgoingMail } from "../../server/outbox/mailer.ts";

/*
 * Every mail the site sends, opened on a phone: in Chromium at 390 px, none
 * is wider than the screen, however long the unbroken links it carries (a
 * sign-in or confirmation link, a long address a reader or the owner wrote).
 */

const siteUrl = "https://engage-with-engineer.example";
const token = "q3Vn1zYh0pXc6o2m8b5KwTnRrLdAeGfHiJkS4uE7t9a";
const longLink =
  "https://en.wikipedia.org/wiki/Orthogonal_frequency-division_multiplexing_and_its_use_in_wireless_local_area_networks_explained";

const enquiry: StoredEnquiry = {
  id: 7,
  name: "Priya Raman",
  email: "priya.raman.fuel-systems-engineering@very-long-company-domain-name.example.org",
  service: "dfmea",
  organisation: "Raman Motors",
  timeline: "Before March",
  message: `We need a DFMEA workshop for our pump module. The drawings are at ${longLink}`,
  status: "new",
  kept: false,
  zone: "UTC",
  threadId: "<enquiry.0123456789abcdef01234567@engage-with-engineer.example>",
  createdAt: "2026-11-30T10:00:00.000Z",
  updatedAt: "2026-11-30T10:00:00.000Z",
  answers: [
    {
      id: 3,
      body: `Thank you. See ${longLink} before we meet.`,
      createdAt: "2026-11-30T12:00:00.000Z",
    },
  ],
};
const context = {
  siteUrl,
  serviceTitle: "DFMEA",
  ownerAddress: "owner@engage-with-engineer.example",
};
const edition = renderEdition(
  "Why a gasket leaks",
  `The stack-up decides it. Read more: ${longLink}\n\n![The pressure cooker](/og/science/pressure-cooker.png)`,
  siteUrl,
);

const call: StoredBooking = {
  id: 4,
  start: "2026-12-14T05:00:00.000Z",
  end: "2026-12-14T05:30:00.000Z",
  name: "Meera Iyer",
  email: enquiry.email,
  service: "dfmea",
  note: `Our pump module's DFMEA has grown past 400 lines. The sheet: ${longLink}`,
  readerZone: "America/Argentina/ComodRivadavia",
  status: "booked",
  uid: "booking.0123456789abcdef01234567@engage-with-engineer.example",
  sequence: 0,
  ownerMoves: 0,
  meetingUrl: "https://meet.jit.si/EngageWithEngineer-q3Vn1zYh0pXc6o2m8b5KwTnRrLdAeGfH",
  cancelledBy: null,
  cancelMessage: null,
  undeliverable: false,
  visitorId: null,
  createdAt: "2026-12-01T10:00:00.000Z",
};
const callContext = {
  siteUrl,
  ownerName: "Priya Deshmukh",
  ownerAddress: "owner@engage-with-engineer.example",
  mailFrom: "Priya Deshmukh from Engage with Engineer <news@engage-with-engineer.example>",
  ownerZone: "Asia/Kolkata",
  serviceTitle: "DFMEA facilitation",
};
const cancelled = {
  ...call,
  sequence: 1,
  by: "owner" as const,
  message: `I am travelling that week; the notes are at ${longLink}`,
};
const notice = {
  comment: {
    id: 12,
    postId: "wifi",
    userName: "Ravi",
    content: `See ${longLink} for the whole story.`,
    createdAt: "2026-11-30T10:00:00.000Z",
  },
  written: "Monday 30 November 2026, 15:30 (Asia / Kolkata, GMT+5:30)",
  state: "held" as const,
  postTitle: "Why Wi-Fi slows down through walls",
  postUrl: `${siteUrl}/science/wifi`,
  links: {
    delete: actionUrl(siteUrl, 12, "delete", token),
    approve: actionUrl(siteUrl, 12, "approve", token),
  },
};

const mails: [string, OutgoingMail][] = [
  ["the newsletter's confirmation", confirmationMail({ to: "a@example.com", token }, siteUrl)],
  ["an edition", editionMail(edition, { to: "a@example.com", token }, siteUrl)],
  ["a reply mail's confirmation", replyConfirmationMail("a@example.com", token, siteUrl)],
  [
    "a reply mail",
    replyMail(
      "a@example.com",
      [
        {
          id: 12,
          postId: "wifi",
          userName: "Ravi",
          html: renderComment(`See [OFDM on Wikipedia](${longLink}) and ${longLink}`),
          text: "",
        },
      ],
      { token, siteUrl, titles: new Map([["wifi", "Why Wi-Fi slows down through walls"]]) },
    ),
  ],
  ["the owner's copy of an enquiry", ownerNoticeMail("owner@example.com", enquiry, context)],
  ["an enquiry's acknowledgement", acknowledgementMail(enquiry, token, context)],
  [
    "the owner's answer",
    answerMail(enquiry, enquiry.answers[0]!, {
      ...context,
      messageIdHost: "engage-with-engineer.example",
    }),
  ],
  ["the console's sign-in link", signInLinkMail({ to: "owner@example.com", token, siteUrl })],
  ["a booked call's invitation", readerInvitationMail(call, token, callContext)],
  [
    "the owner's copy of a booked call",
    ownerInvitationMail("o@example.com", call, callContext, "reader", "publish", {
      movedFrom: call.start,
    }),
  ],
  ["a call's cancellation", cancellationMail(call.email, "reader", cancelled, callContext)],
  [
    "the owner's copy of a cancellation",
    cancellationMail("o@example.com", "owner", cancelled, callContext),
  ],
  ["a call's reminder", reminderMail(call.email, "reader", call, 1, callContext, token)],
  ["the owner's reminder", reminderMail("o@example.com", "owner", call, 24, callContext)],
  [
    "a call not booked",
    notMadeMail(
      call.email,
      { why: "booked this hour", start: call.start, zone: call.readerZone, service: call.service },
      callContext,
    ),
  ],
  ["the owner's notice of a comment", noticeMail("owner@example.com", notice)],
  [
    "the owner's digest of comments",
    digestMail("owner@example.com", [notice, notice], { deleted: 1, more: 3 }),
  ],
];

/** The mails with a lead (`laidOut`'s or `linkMail`'s): why the mail came, its first paragraph. */
const withLead = new Set([
  "the newsletter's confirmation",
  "a reply mail's confirmation",
  "an enquiry's acknowledgement",
  "the console's sign-in link",
  "a booked call's invitation",
  "the owner's copy of a booked call",
  "a call's reminder",
  "the owner's reminder",
]);

describe("mails on a phone", () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await chromium.launch({
      executablePath: "/usr/bin/chromium-headless-shell",
      args: ["--no-sandbox", "--disable-gpu"],
    });
  });
  afterAll(() => browser?.close());

  it.each(mails)("%s is no wider than a 390 px screen", async (_, mail) => {
    const page = await browser.newPage({ viewport: { width: 390, height: 800 } });
    try {
      // As a mail program shows it: the HTML alone, nothing fetched.
      await page.route("**/*", (route) => route.abort());
      await page.setContent(mail.html);
      const width = await page.evaluate(() => document.documentElement.scrollWidth);
      expect(width).toBeLessThanOrEqual(390);
    } finally {
      await page.close();
    }
  });

  // One layout, one space under a paragraph of text (16 px), the lead's as the rest's;
  // 8 px ties a line to what it introduces, 20 px parts one entry from the next.
  it.each(mails)("%s sets its paragraphs apart by the layout's spaces", async (name, mail) => {
    const page = await browser.newPage({ viewport: { width: 390, height: 800 } });
    try {
      await page.route("**/*", (route) => route.abort());
      await page.setContent(mail.html);
      const spaces = await page.$$eval("td.body p", (paragraphs) =>
        paragraphs.map((p) => getComputedStyle(p).marginBottom),
      );
      expect(spaces.filter((space) => !["0px", "8px", "16px", "20px"].includes(space))).toEqual([]);
      if (withLead.has(name)) expect(spaces[0]).toBe("16px");
    } finally {
      await page.close();
    }
  });
});
