import type { z } from "zod";
import { ContentError } from "./frontmatter.ts";
import { contentMarkdown, plainText, renderMarkdown } from "./markdown.ts";
import { withoutSampleVoiceMarkers } from "./sample-voice-marker.ts";
import type { servicePriceSchema } from "./schema.ts";

/*
 * A service's own page (/services/<id>, docs/product.md, "Services") is its
 * Markdown body: the sections a buyer decides on, each a `##` heading, and its
 * questions, each a `###` heading under "Questions" with its answer below. The
 * content check refuses a service without every section; the page's FAQPage
 * JSON-LD is read from the questions.
 */

/** The `##` sections every service page has, in this order. */
export const serviceSections = [
  "What you get",
  "How it works",
  "Typical engagements",
  "Example",
  "Questions",
] as const;

/**
 * Where a service page's prose offers a first call, its length and price as the owner
 * sets them: "A first call {{first call}} on …" reads "A first call (30 minutes, free) on
 * …". The build leaves `firstCallHole` there, which the server fills from the Bookings
 * hours (server/bookings/pages.ts), as /book says it (contract/time-zones.ts, callTerms);
 * the assistant and the search index read the sentence without it.
 */
const firstCallToken = "{{first call}}";
export const firstCallHole = '<ewe-fragment data-part="first-call"></ewe-fragment>';
/** A page's HTML with the hole where its prose has the token, or (`hole` "") without the token. */
export const withFirstCall = (html: string, hole = firstCallHole) =>
  hole ? html.replaceAll(firstCallToken, hole) : html.replaceAll(` ${firstCallToken}`, "");

/** A call's length or price in words: "30 minutes", "a 30-minute call", "half an hour", "free". */
const callTerms =
  /\b\d+[-\s]?(?:min|mins|minutes?|hours?)\b|\bhalf[-\s]an[-\s]hour\b|\bfree\b(?!\s+to\b)/i;

/**
 * Refuses a sentence of a service page that speaks of a call with its length or price
 * written by hand ("a free 30-minute call"): the owner sets them in the console, and
 * the page would go on saying the old ones. The sentence takes `{{first call}}` instead.
 */
function refuseHandWrittenCallTerms(file: string, body: string) {
  for (const sentence of withoutSampleVoiceMarkers(body).split(/(?<=[.!?:])\s+|\n{2,}/)) {
    const terms =
      /\bcalls?\b/i.test(sentence) && !sentence.includes(firstCallToken)
        ? sentence.match(callTerms)
        : null;
    if (terms) {
      throw new ContentError(
        `${file}: "${sentence.trim()}" gives a call's length or price by hand ("${terms[0]}"); write ${firstCallToken}, which the page fills from the console's Bookings hours`,
      );
    }
  }
}

/** Paths below /services/ that are pages of their own, never a service's id. */
const takenPaths = new Set(["ask", "enquiry", "enquiry-sent"]);

type ServiceQuestion = { question: string; answer: string };

/** The body's questions, checked: every section present and in order, every question answered. */
export function serviceQuestions(file: string, id: string, body: string): ServiceQuestion[] {
  if (takenPaths.has(id)) {
    throw new ContentError(
      `${file}: id "${id}" is taken by the page /services/${id}; choose another`,
    );
  }
  refuseHandWrittenCallTerms(file, body);
  const source = withoutSampleVoiceMarkers(body).split("\n");
  const tokens = contentMarkdown.parse(source.join("\n"), {});
  // The body's own blocks, not those inside a quote or a list: each heading's depth and words.
  const blocks = tokens.flatMap((token, index) => {
    if (token.level !== 0 || !token.map) return [];
    const depth = token.type === "heading_open" ? Number(token.tag.slice(1)) : 0;
    const text = depth ? (tokens[index + 1]?.content.trim() ?? "") : "";
    return [{ depth, text, markdown: source.slice(...token.map).join("\n") }];
  });
  const sections = blocks.filter((block) => block.depth === 2).map((heading) => heading.text);
  const missing = serviceSections.filter((name) => !sections.includes(name));
  if (missing.length > 0) {
    throw new ContentError(
      `${file}: a service page needs the sections ${serviceSections.map((name) => `"## ${name}"`).join(", ")}; missing ${missing.map((name) => `"## ${name}"`).join(", ")}`,
    );
  }
  const order = sections.filter((name) => (serviceSections as readonly string[]).includes(name));
  if (order.join("|") !== serviceSections.join("|")) {
    throw new ContentError(`${file}: the sections go in this order: ${serviceSections.join(", ")}`);
  }
  const at = (name: string) => blocks.findIndex((b) => b.depth === 2 && b.text === name);
  // A heading straight after a section's own: nothing under it (the last is checked below).
  const empty = serviceSections.filter((name) => [1, 2].includes(blocks[at(name) + 1]?.depth ?? 0));
  if (empty.length > 0) {
    throw new ContentError(`${file}: the section "## ${empty[0]}" is empty`);
  }
  const start = at("Questions");
  const questions: { question: string; answer: string[] }[] = [];
  for (const block of blocks.slice(start + 1)) {
    if (block.depth === 1 || block.depth === 2) break;
    if (block.depth === 3) {
      questions.push({ question: plainText(renderMarkdown(block.text, 0)), answer: [] });
    } else {
      const last = questions.at(-1);
      if (!last) {
        throw new ContentError(`${file}: under "## Questions", each question is a "###" heading`);
      }
      last.answer.push(block.markdown);
    }
  }
  if (questions.length === 0) {
    throw new ContentError(`${file}: "## Questions" holds no question (a "###" heading each)`);
  }
  return questions.map(({ question, answer }) => {
    const text = plainText(renderMarkdown(answer.join("\n\n"), 0));
    if (text === "") throw new ContentError(`${file}: the question "${question}" has no answer`);
    return { question, answer: text };
  });
}

type ServicePrice = z.output<typeof servicePriceSchema>;

/** "From ₹45,000 per training day", "₹60,000 to ₹1,80,000 for one assembly", "Price on request". */
export function priceSignal(price: ServicePrice): string {
  if (price === "on request") return "Price on request";
  const money = new Intl.NumberFormat(price.currency === "INR" ? "en-IN" : "en-GB", {
    style: "currency",
    currency: price.currency,
    maximumFractionDigits: 0,
  });
  return price.to === undefined
    ? `From ${money.format(price.from)} ${price.per}`
    : `${money.format(price.from)} to ${money.format(price.to)} ${price.per}`;
}
