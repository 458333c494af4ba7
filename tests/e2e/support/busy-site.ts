import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { formTokenFor, isAddressedTo, outboxMails } from "../../support/newsletter.ts";

/**
 * A busy site, seeded as its readers and its owner would make it: through the
 * API the pages call, the pages' beacon and the owner's command line, never by
 * writing rows. What it made is returned, for the screens' figures.
 */
export type Site = { siteUrl: string; url: string; dataDir: string };
export type Cli = (...argv: string[]) => string;

/** A reader's browser: its own cookies and user agent (so its own reader of the day). */
class Browser {
  cookies = new Map<string, string>();
  readonly site: Site;
  readonly userAgent: string;
  constructor(site: Site, userAgent: string) {
    this.site = site;
    this.userAgent = userAgent;
  }
  async call(method: string, route: string, body?: unknown, extra: Record<string, string> = {}) {
    const headers: Record<string, string> = {
      origin: this.site.siteUrl,
      "user-agent": this.userAgent,
      ...extra,
    };
    if (this.cookies.size)
      headers.cookie = [...this.cookies].map(([k, v]) => `${k}=${v}`).join("; ");
    if (typeof body === "string" && body)
      headers["content-type"] = "application/x-www-form-urlencoded";
    else if (body !== undefined && typeof body !== "string")
      headers["content-type"] = "application/json";
    const answer = await fetch(`${this.site.url}${route}`, {
      method,
      headers,
      body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body),
      redirect: "manual",
    });
    for (const line of answer.headers.getSetCookie()) {
      const [pair] = line.split(";");
      const at = pair?.indexOf("=") ?? -1;
      if (pair && at > 0) this.cookies.set(pair.slice(0, at), pair.slice(at + 1));
    }
    const text = await answer.text();
    return { status: answer.status, text, json: () => JSON.parse(text) };
  }
  async must(method: string, route: string, body?: unknown, status = [200, 201, 204]) {
    const answer = await this.call(method, route, body);
    if (!status.includes(answer.status))
      throw new Error(`${method} ${route}: ${answer.status} ${answer.text}`);
    return answer;
  }
}

const agents = [
  "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0 Safari/537.36",
  "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1",
  "Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:131.0) Gecko/20100101 Firefox/131.0",
  "Mozilla/5.0 (iPad; CPU OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Safari/604.1",
];
/** The nth reader's browser: a user agent of its own, so a reader of its own. */
const agentOf = (n: number) => `${agents[n % agents.length]} r${n}`;

export const odd = {
  /** The longest display name a comment takes (40). */
  longName: "Venkatanarasimharajuvaripeta_Subrahmanya",
  emoji: "Priya 🚗⚡",
  rtl: "مريم الحسيني",
  /** The longest name an enquiry takes (100). */
  longEnquiryName:
    "Sri Venkata Lakshmi Narasimha Subrahmanya Satyanarayana Murthy Chakravarthula Ramanujacharyulu Naidu",
};

const posts = ["soap", "pressure-cooker", "tea-cooling", "wifi", "ironing"];
const services = [
  "dfmea",
  "tolerance-stackups",
  "vba-tools",
  "ic-engine-projects",
  "technical-training",
];

export type Seeded = {
  comments: { held: number; spam: number; published: number };
  subscribers: { confirmed: number; pending: number; suppressed: number };
  enquiries: number;
  bookings: { ahead: number; cancelled: number; moved: number };
  questions: number;
  sentEdition: string;
};

/** Seeds `site` (its server running with the settings `busySiteEnv` names) as a busy site. */
export async function seedBusySite(site: Site, cli: Cli, editionsDir: string): Promise<Seeded> {
  const readers = Array.from({ length: 40 }, (_, n) => new Browser(site, agentOf(n)));

  // Readers' views first, as a visit begins: the beacon, as a browser sends it.
  const sources = [
    { r: "https://www.google.com/", q: "" },
    {
      r: "https://www.linkedin.com/",
      q: "?utm_source=linkedin&utm_medium=social&utm_campaign=launch",
    },
    { r: "https://mastodon.social/", q: "" },
    { r: "", q: "?utm_source=newsletter&utm_medium=email&utm_campaign=edition-1" },
    { r: "", q: "" },
    { r: "https://news.ycombinator.com/item?id=1", q: "" },
  ];
  const zones = [
    "Asia/Kolkata",
    "Europe/London",
    "America/New_York",
    "Asia/Dubai",
    "Europe/Berlin",
  ];
  const pages = [...posts.map((p) => `/science/${p}`), "/", "/services", "/about", "/book"];
  await Promise.all(
    readers.map(async (reader, n) => {
      const source = sources[n % sources.length];
      for (let v = 0; v < 1 + (n % 4); v++) {
        const page = pages[(n + v * 3) % pages.length] ?? "/";
        const query = new URLSearchParams({
          p: page,
          r: v === 0 ? (source?.r ?? "") : `${site.siteUrl}/`,
          q: v === 0 ? (source?.q ?? "") : "",
          z: zones[n % zones.length] ?? "",
        });
        await reader.must("POST", `/api/readers/view?${query}`, "", [204]);
        if (page.startsWith("/science/") && n % 2 === 0)
          await reader.must(
            "POST",
            `/api/readers/read?${new URLSearchParams({ p: page })}`,
            "",
            [204],
          );
      }
    }),
  );

  // Comments: each of 30 readers writes on several posts; with MODERATION=first the
  // first comment of each waits, and the owner approves most writers by their first.
  const names = [
    "Asha Kulkarni",
    "Ravi Menon",
    odd.longName,
    odd.emoji,
    odd.rtl,
    "Neha",
    "Karthik S",
    "Deepa Rao",
    "Imran Shaikh",
    "Lakshmi",
    "Tom Becker",
    "Sofia Alvarez",
    "Arvind",
    "Meera Iyer",
    "Joe",
    "Farah",
    "Vikram Joshi",
    "Anjali",
    "Suresh",
    "Kavya",
    "Rahul Das",
    "Nikhil",
    "Pooja",
    "Sanjay",
    "Divya",
    "Harish",
    "Gita",
    "Mohan",
    "Zara",
    "Omar",
  ];
  const text = (n: number, post: string) =>
    n % 9 === 4
      ? `هذا تعليق مكتوب بالعربية عن ${post} — هل يعمل الصابون في الماء البارد؟`
      : n % 7 === 3
        ? `I tried this at home with three kinds of soap and cold water from the tap. The bar soap left a film on the glass, the liquid one did not, and the detergent was quickest of all. My guess is that the water here is hard, so the bar soap meets calcium before it meets the grease, and the scum we see is what is left of it. Would a spoon of washing soda in the water change the result, or would it only raise the pH and make the skin dry? I also wonder whether warm water matters more than the soap itself when the dishes are oily, because the fat softens above forty degrees or so. Thank you for writing it up so clearly on ${post}.`
        : `Comment ${n} on ${post}: how does this change with hard water? 🤔`;
  type Made = { id: number; status: string };
  const firsts: Made[] = [];
  const made: Made[] = [];
  for (const [n, name] of names.entries()) {
    const reader = readers[n] as Browser;
    const post = posts[n % posts.length] as string;
    const answer = await reader.must("POST", `/api/items/science/${post}/comments`, {
      content: text(n, post),
      userName: name,
    });
    firsts.push(answer.json().comment);
  }
  // The owner approves 24 of the 30 writers by their first comment, one from the
  // command line and the rest at once in the console; 6 stay held.
  const owner = await signedInOwner(site, cli);
  cli("comments", "approve", String(firsts[0]?.id));
  await owner.must("POST", "/api/admin/comments/bulk", {
    action: "approve",
    ids: firsts.slice(1, 24).map((comment) => comment.id),
  });
  for (let round = 0; round < 3; round++) {
    for (const [n, name] of names.slice(0, 24).entries()) {
      const reader = readers[n] as Browser;
      const post = posts[(n + round + 1) % posts.length] as string;
      const answer = await reader.must("POST", `/api/items/science/${post}/comments`, {
        content: `${text(n + round * 30 + 1, post)} (round ${round})`,
        userName: name,
      });
      made.push(answer.json().comment);
    }
  }
  // Replies: readers answering the approved first comments, on the same post.
  for (const [n, parent] of firsts.slice(0, 20).entries()) {
    const reader = readers[(n + 5) % 24] as Browser;
    const post = posts[n % posts.length] as string;
    const answer = await reader.must("POST", `/api/items/science/${post}/comments`, {
      content: `Reply ${n}: I saw the same thing in my kitchen.`,
      userName: names[(n + 5) % 24],
      parentId: parent.id,
    });
    made.push(answer.json().comment);
  }
  // Spam, as the owner marks it: eight of the published ones.
  const spam = made.filter((_, i) => i % 13 === 5).slice(0, 8);
  cli("comments", "spam", String(spam[0]?.id));
  for (const comment of spam.slice(1))
    await owner.must("POST", `/api/admin/comments/${comment.id}/spam`);

  // Subscribers: 56 imported confirmed, with the basis; 6 asking on the form (pending).
  const original = mkdtempSync(path.join(tmpdir(), "ewe-busy-original-"));
  const confirmed = Array.from({ length: 56 }, (_, n) => `reader${n}@example.org`);
  writeFileSync(path.join(original, "subscribers.csv"), `email\n${confirmed.join("\n")}\n`);
  cli(
    "import",
    "--from",
    "original",
    original,
    "--subscribers",
    "confirmed",
    "--legal-basis",
    "consent on the old form, records kept",
  );
  // A form's signed time, old enough to pass; each is spent once.
  const token = () => formTokenFor({ DATA_DIR: site.dataDir });
  for (let n = 0; n < 6; n++)
    await (readers[n] as Browser).must(
      "POST",
      "/api/subscribers",
      {
        email: `pending${n}@example.net`,
        formToken: token(),
      },
      [202],
    );

  // One edition sent to them all, one left a draft.
  const sent = "01-pressure-in-numbers";
  cli("newsletter", "send", path.join(editionsDir, `${sent}.md`), "--yes");

  // Its bounces and a complaint, as the mail provider's webhook reports them once it went.
  await waitFor(async () => {
    const { editions } = (await owner.must("GET", "/api/admin/editions")).json() as {
      editions: { slug: string; progress: { sent: number } | null }[];
    };
    const progress = editions.find((edition) => edition.slug === sent)?.progress;
    return progress?.sent === confirmed.length ? true : undefined;
  });
  const postmark = `Basic ${Buffer.from(`postmark:${busySiteEnv("").POSTMARK_WEBHOOK_SECRET}`).toString("base64")}`;
  const bounced = [
    ["HardBounce", "reader3@example.org"],
    ["HardBounce", "reader7@example.org"],
    ["HardBounce", "reader11@example.org"],
    ["SpamComplaint", "reader20@example.org"],
    ["SoftBounce", "reader30@example.org"],
    ["SoftBounce", "reader30@example.org"],
    ["SoftBounce", "reader30@example.org"],
  ] as const;
  for (const [n, [type, email]] of bounced.entries()) {
    const answer = await (readers[0] as Browser).call(
      "POST",
      "/hooks/postmark",
      {
        RecordType: type === "SpamComplaint" ? "SpamComplaint" : "Bounce",
        Type: type,
        ID: 1000 + n,
        Email: email,
        Description: "The server was unable to deliver your message.",
      },
      { authorization: postmark },
    );
    if (answer.status >= 300) throw new Error(`postmark: ${answer.status} ${answer.text}`);
  }

  // Enquiries: a dozen, some with odd names, from readers who viewed pages today.
  for (let n = 0; n < 12; n++) {
    const reader = readers[n + 10] as Browser;
    await reader.must("POST", "/api/enquiries", {
      name: n === 0 ? odd.longEnquiryName : n === 1 ? odd.rtl : n === 2 ? odd.emoji : `Client ${n}`,
      email: `client${n}@example.com`,
      service: services[n % services.length],
      message:
        n % 4 === 3
          ? `Our team designs fuel pumps for two-wheelers and we are moving the range to a new housing. The supplier changed the die-cast alloy last year and since then the bearing bore drifts out of tolerance after the first heat cycle. We would like someone to review the stack-up, the DFMEA and the test plan before the next build in March, and to train two of our younger engineers while doing it. Could you tell us how you would go about it, and what you would need from us? (enquiry ${n})`
          : `We would like help with ${services[n % services.length]} on our next project; could we talk about it? (enquiry ${n})`,
      organisation: n % 3 === 0 ? "Rao Pumps Pvt Ltd" : undefined,
      formToken: token(),
      zone: zones[n % zones.length],
    });
  }

  // Bookings over the next two weeks, from readers with a visit today.
  const slots = (await readers[0]?.must("GET", "/api/bookings/slots"))?.json().starts as string[];
  const byDay = new Map<string, string>();
  for (const start of slots) {
    const day = start.slice(0, 10);
    if (!byDay.has(day) && byDay.size < 10) byDay.set(day, start);
  }
  const starts = [...byDay.values()];
  const booked: { email: string; start: string }[] = [];
  for (const [n, start] of starts.entries()) {
    const email = `caller${n}@example.com`;
    await (readers[n + 20] as Browser).must("POST", "/api/bookings", {
      start,
      name: n === 0 ? odd.longEnquiryName : n === 1 ? odd.rtl : `Caller ${n}`,
      email,
      service: services[n % services.length],
      note:
        n === 2
          ? "We build small diesel gensets and our injector supplier has changed the nozzle. Since then the smoke at idle is worse and the fuel consumption at full load rose by four per cent. I would like to walk you through the test data and hear where you would start looking, before we ask the supplier for a new batch."
          : "Let's talk about the pump.",
      zone: zones[n % zones.length],
      formToken: token(),
    });
    booked.push({ email, start });
  }
  // Two readers move their call from the link in their invitation.
  let moved = 0;
  for (const { email, start } of booked.slice(3, 5)) {
    const link = await waitFor(async () => {
      for (const mail of await outboxMails(site.dataDir, (m) => isAddressedTo(m, email))) {
        const found = /\/book\/reschedule\?token=([A-Za-z0-9_-]+)/.exec(mail.text ?? "");
        if (found) return found[1];
      }
      return undefined;
    });
    const later = slots.find(
      (s) =>
        s > start && !booked.some((b) => b.start === s) && s.slice(0, 10) === start.slice(0, 10),
    );
    if (!later) continue;
    const browser = new Browser(site, agentOf(99));
    await browser.must(
      "POST",
      "/book/reschedule",
      new URLSearchParams({ token: link, start: later }).toString(),
      [200],
    );
    moved++;
  }
  // The owner cancels one.
  const listed = JSON.parse(cli("bookings", "list", "--json")) as { id: number }[];
  const cancelled = listed[listed.length - 1];
  if (cancelled)
    cli(
      "bookings",
      "cancel",
      String(cancelled.id),
      "--yes",
      "--message",
      "I am travelling that day, sorry.",
    );

  // Questions to the assistant.
  const questions = [
    "how does soap clean?",
    "why does a pressure cooker cook faster",
    "what is a tolerance stack-up",
    "do you do DFMEA reviews",
    "how to cool tea quickly",
    "what is hydrogen embrittlement in fuel cells",
    "quantum gravity and turbochargers",
    "can you write VBA macros for Excel",
    "ഇത് എങ്ങനെ പ്രവർത്തിക്കുന്നു",
    "how much does training cost",
  ];
  for (const [n, question] of questions.entries())
    await (readers[n + 30] as Browser).must("POST", "/api/assistant", { question });

  return {
    comments: { held: 6, spam: spam.length, published: 0 },
    subscribers: { confirmed: 56, pending: 6, suppressed: 5 },
    enquiries: 12,
    bookings: { ahead: starts.length - 1, cancelled: 1, moved },
    questions: questions.length,
    sentEdition: sent,
  };
}

/** The owner, signed in with the command line's link as the sign-in page sends it. */
async function signedInOwner(site: Site, cli: Cli): Promise<Browser> {
  const owner = new Browser(site, agents[0] as string);
  const token = new URL(cli("login").trim()).hash.replace(/^#token=/, "");
  await owner.must("POST", "/api/admin/sign-in", { token });
  return owner;
}

async function waitFor<T>(find: () => Promise<T | undefined>, timeoutMs = 20_000): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const found = await find();
    if (found !== undefined) return found;
    if (Date.now() > until) throw new Error("not found in time");
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** The settings a busy site runs with, beside the generous write limits. */
export const busySiteEnv = (editionsDir: string) => ({
  MODERATION: "first",
  COMMENT_MIN_SECONDS: "0",
  COMMENT_DUPLICATE_MINUTES: "0",
  ENQUIRIES_PER_HOUR: "1000",
  BOOKINGS_PER_HOUR: "1000",
  ANALYTICS_VIEWS_PER_MINUTE_PER_IP: "100000",
  ASSISTANT_QUESTIONS_PER_MINUTE_PER_IP: "1000",
  ASSISTANT_QUESTIONS_PER_DAY_PER_IP: "100000",
  MAIL_RATE_PER_MINUTE: "0",
  EDITIONS_DIR: editionsDir,
  OWNER_EMAIL: "owner@example.com",
  POSTMARK_WEBHOOK_SECRET: "postmark-webhook-secret-0123456789",
});
