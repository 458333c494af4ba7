import { siteItems } from "../../content/items.ts";
import type { SiteContent } from "../../content/load.ts";
import { plainText } from "../../content/markdown.ts";
import { type Owner, yearsOfPractice } from "../../content/owner.ts";
import { priceSignal, withFirstCall } from "../../content/service-page.ts";

/**
 * The site's writing cut into passages for the assistant (docs/product.md,
 * "Chat with Me"), at build time (scripts/build.ts): every item's page, About,
 * the home page, the section introductions and every service, each cut at its
 * headings, and a long part again into a few paragraphs. A passage knows its
 * page, its heading and the link to that heading, so an answer can quote it and
 * lead straight to it.
 *
 * A service's title, description, terms and list of what it includes open its
 * first passage; its page's text (what you get, how it works, its questions,
 * each under its heading) is cut as any page's is.
 */

export type ServiceRef = {
  id: string;
  title: string;
  /** Its description, as the services page gives it, then its price, length and place. */
  summary: string;
  includes: string[];
};

export type Passage = {
  id: number;
  /** The page, and the heading's anchor where there is one: `/science/ironing#pressing-temperatures`. */
  url: string;
  /** The page alone: `/science/ironing`. */
  page: string;
  /** The page's title. */
  title: string;
  /** The heading the passage sits under, when it is not the page's own. */
  heading: string | null;
  section: string;
  text: string;
  /** The service a passage describes. */
  service: ServiceRef | null;
};

/** Words above which a part is cut again at its paragraphs. */
const partWordsMax = 160;

type Block = { heading: string | null; id: string | null; paragraphs: string[] };

/** Its text, as content/markdown.ts reads it, with no space before a stop or a comma. */
const textOf = (html: string) => plainText(html).replace(/ ([.,;:!?)])/g, "$1");

/** A body's HTML (ours, from marked) as its parts under each heading, paragraph by paragraph. */
function blocksOf(html: string): Block[] {
  const blocks: Block[] = [{ heading: null, id: null, paragraphs: [] }];
  const pieces = html.split(/(<h[1-6][^>]*>[\s\S]*?<\/h[1-6]>)/);
  for (const piece of pieces) {
    const heading = /^<h[1-6]([^>]*)>([\s\S]*?)<\/h[1-6]>$/.exec(piece);
    if (heading) {
      const id = /\bid="([^"]+)"/.exec(heading[1] ?? "")?.[1] ?? null;
      blocks.push({ heading: textOf(heading[2] ?? ""), id, paragraphs: [] });
      continue;
    }
    const current = blocks.at(-1) as Block;
    // A list item or a table row reads as a sentence of its own.
    const paragraphs = piece
      .split(/<\/(?:p|li|tr|blockquote|pre|h[1-6])>/)
      .map((part) => textOf(part))
      .filter((part) => part !== "")
      .map((part) => (/[.!?:;…]["”’)]?$/.test(part) ? part : `${part}.`));
    current.paragraphs.push(...paragraphs);
  }
  return blocks.filter(
    (block) => block.paragraphs.length > 0 && !citations.test(block.heading ?? ""),
  );
}

/** A part that lists where the figures came from: it cites, it answers nothing. */
const citations = /^(sources|references|further reading|bibliography)$/i;

const wordCount = (text: string) => text.split(/\s+/).length;

/** A part's paragraphs in runs of at most `partWordsMax` words (one long paragraph stays whole). */
function runs(paragraphs: string[]): string[] {
  const out: string[] = [];
  let current: string[] = [];
  let words = 0;
  for (const paragraph of paragraphs) {
    const count = wordCount(paragraph);
    if (current.length > 0 && words + count > partWordsMax) {
      out.push(current.join(" "));
      current = [];
      words = 0;
    }
    current.push(paragraph);
    words += count;
  }
  if (current.length > 0) out.push(current.join(" "));
  return out;
}

type Page = {
  page: string;
  title: string;
  section: string;
  /** Text that opens the page before its body (a summary). */
  lead?: string;
  html: string;
  service?: ServiceRef;
};

/** Who the owner is, as the About page's header says it (content/owner.md). */
function ownerLead(owner: Owner): string {
  const years = yearsOfPractice(owner);
  return [
    `${owner.name}.`,
    owner.role ? `${owner.role.replace(/\.$/, "")}.` : "",
    owner.location ? `Based in ${owner.location}.` : "",
    years !== null ? `${years} years of practice, since ${owner.practisingSince}.` : "",
    owner.education.length > 0 ? `Education: ${owner.education.join("; ")}.` : "",
    owner.areas.length > 0 ? `Areas of practice: ${owner.areas.join("; ")}.` : "",
  ]
    .filter((part) => part !== "")
    .join(" ");
}

/**
 * `servicePage(id)`: where a service is read, its own page once the build has
 * one, else its card on /services. `owner`: who the About page's header says
 * the owner is (its passage opens with them).
 */
export function sitePassages(
  content: SiteContent,
  { servicePage, owner }: { servicePage(id: string): string; owner: Owner },
): Passage[] {
  const pages: Page[] = [
    {
      page: "/",
      title: content.home.headline,
      section: "Home",
      lead: content.home.themes.map((theme) => `${theme.title}: ${theme.text}`).join(" "),
      html: content.home.html,
    },
    {
      page: "/about",
      title: content.about.title,
      section: "About",
      lead: ownerLead(owner),
      html: content.about.html,
    },
    ...content.technical.tabs.map((tab) => ({
      page: "/technical",
      title: `Technical: ${tab.label}`,
      section: "Technical",
      html: tab.html,
    })),
    {
      page: "/mechfusion-ai",
      title: content.ai.intro.title,
      section: "MechFusionAI",
      lead: `${content.ai.intro.panelTitle}: ${content.ai.intro.panelPoints.join("; ")}.`,
      html: content.ai.intro.html,
    },
    ...siteItems(content).map((item) => ({
      page: item.path,
      title: item.title,
      section: item.section.name,
      ...(item.summary ? { lead: item.summary } : {}),
      html: item.html,
    })),
    ...content.services.map((service) => {
      const page = servicePage(service.id);
      // What a reader asking about a service wants next: what it costs, how long, where.
      const terms = [
        priceSignal(service.price),
        `How long it takes: ${service.duration}`,
        `Where: ${service.where}`,
      ].map((term) => `${term.replace(/\.$/, "")}.`);
      const ref = {
        id: service.id,
        title: service.title,
        summary: `${service.description} ${terms.join(" ")}`,
        includes: service.features,
      };
      // On its own page, each heading has its anchor; on a card of /services, none.
      const own = !page.includes("#");
      return {
        page,
        title: service.title,
        section: "Services",
        lead: `${service.title}. ${ref.summary} It includes: ${service.features.join("; ")}.`,
        // The first call's length and price are the owner's setting, said by the page alone.
        html: withFirstCall(own ? service.pageHtml : service.html, ""),
        service: ref,
      };
    }),
  ];

  const passages: Passage[] = [];
  for (const page of pages) {
    const [path, pageAnchor] = page.page.split("#");
    const blocks = blocksOf(page.html);
    if (page.lead) {
      const first = blocks[0];
      if (first && first.heading === null) first.paragraphs.unshift(page.lead);
      else blocks.unshift({ heading: null, id: null, paragraphs: [page.lead] });
    }
    for (const block of blocks) {
      for (const text of runs(block.paragraphs)) {
        const anchor = block.id ?? pageAnchor;
        passages.push({
          id: passages.length,
          url: anchor ? `${path}#${anchor}` : (path as string),
          page: path as string,
          title: page.title,
          heading: block.heading,
          section: page.section,
          text,
          service: page.service ?? null,
        });
      }
    }
  }
  return passages;
}
