import { z } from "zod";
import { isTimeZone } from "../contract/time-zones.ts";

/**
 * The shape of every content file (see FORMAT.md). Objects are strict, so an
 * unknown field is an error just like a missing one: typos never slip through.
 */
const text = z.string().trim().min(1);
// Aborts, so no later check of the same value parses an address that is none.
const url = z.url({
  protocol: /^https?$/,
  abort: true,
  error: "must be a whole address, such as https://example.com/page",
});

const imageSchema = z.strictObject({
  src: z
    .string()
    .regex(
      /^[a-z0-9-]+\/[a-z0-9-]+\.(svg|png|webp|jpg)$/,
      "must be folder/name under content/images/ in lower-case letters, digits and dashes, ending .svg, .png, .webp or .jpg (owner/portrait.jpg)",
    ),
  alt: text,
  width: z.number().int().positive(),
  height: z.number().int().positive(),
});

const linkSchema = z.strictObject({ label: text, url });

const iconNames = [
  "cog",
  "flame",
  "battery-charging",
  "shield-alert",
  "ruler",
  "bot",
  "mic",
  "file-spreadsheet",
  "graduation-cap",
  "sigma",
  "lightbulb",
  "sparkles",
  "brain-circuit",
] as const;
const iconSchema = z.enum(iconNames);

const reactionCountsSchema = z.strictObject({
  like: z.number().int().min(0),
  love: z.number().int().min(0),
  dislike: z.number().int().min(0),
  idea: z.number().int().min(0),
});

export const idSchema = z
  .string()
  .regex(/^[a-z0-9]+(-[a-z0-9]+)*$/, "must be lower-case words joined by hyphens");
const order = z.number().int().min(1);

/**
 * A calendar day, "2026-03-14": when a piece first appeared, and when it last changed.
 * Astro's frontmatter parser reads an unquoted day as midnight UTC; that is the day.
 */
const day = z.preprocess(
  (value) => (value instanceof Date ? value.toISOString().replace("T00:00:00.000Z", "") : value),
  z.iso.date("must be a date written as YYYY-MM-DD"),
);
/**
 * Every item that has its own page carries its dates; feeds, the sitemap and
 * search engines read them (docs/decisions/013-item-pages-and-feeds.md).
 */
const dates = {
  /** Optional: without it, the file's first commit (content/dates.ts). */
  published: day.optional(),
  updated: day.optional(),
  /** The piece appeared elsewhere first, so `published` may be older than its first commit here. */
  imported: z.boolean().optional(),
};

/** The fields every item with a card has: its title, place in its list, dates and summary. */
const card = { title: text, order, ...dates, summary: text };

/** The services an item leads its reader to (their ids in content/services/). */
const relatedServices = { services: z.array(idSchema).min(1).optional() };

/** The pages a home tile may lead to: the site's sections and pages (app/navigation.ts). */
const tileLinks = [
  "/about",
  "/technical",
  "/non-technical",
  "/mythology",
  "/mechfusion-ai",
  "/science",
  "/services",
] as const;

const homeSchema = z.strictObject({
  headline: text,
  description: text.max(160),
  /** The Explore tiles, each a link to the page it describes. */
  themes: z.array(z.strictObject({ title: text, text, link: z.enum(tileLinks) })).length(5),
  images: z.array(imageSchema).length(2),
});

const quotesSchema = z.strictObject({
  quotes: z.array(z.strictObject({ text, author: text })).length(5),
});

const aboutSchema = z.strictObject({ title: text, description: text.max(160) });

/**
 * A person's name as it appears in bylines, feeds and the From header of mails:
 * one line, and none of the characters that would let it split a mail header.
 */
export const personName = text
  .max(80)
  .refine((name) => !/[\p{Cc}<>"@]/u.test(name), 'must be one line without < > " or @');

/** The owner's profile (content/owner.md): who writes the site and can be hired. */
export const ownerSchema = z.strictObject({
  /** The repository's own profile is a sample; production refuses it (README, "First run"). */
  sample: z.boolean().default(false),
  name: personName,
  /** One line under the name: what the owner does. */
  role: text.max(120),
  location: text.max(80),
  /** The owner's IANA time zone ("Asia/Kolkata"): the booked calls' hours are in it, unless BOOKING_TIMEZONE says otherwise. */
  timeZone: z
    .string()
    .refine(isTimeZone, "an IANA time zone, such as Europe/London or Asia/Kolkata")
    .optional(),
  /** The year the owner started practising, so "years of practice" never goes stale. */
  practisingSince: z
    .number()
    .int()
    .min(1950)
    .refine((year) => year <= new Date().getUTCFullYear(), "cannot be in the future"),
  education: z.array(text.max(160)).default([]),
  areas: z.array(text.max(80)).min(1),
  photo: imageSchema.optional(),
  links: z
    .array(linkSchema)
    .default([])
    .refine(
      (links) =>
        links.filter((link) => isLinkedIn(link.url)).every((link) => isLinkedInProfile(link.url)),
      "a LinkedIn link here is the owner's profile, https://www.linkedin.com/in/<name>",
    ),
});

const linkedInHost = /^(?:[a-z]{2,3}\.|www\.)?linkedin\.com$/;
const isLinkedIn = (url: string) => linkedInHost.test(new URL(url).hostname);
const isLinkedInProfile = (url: string) => {
  const parsed = new URL(url);
  return parsed.protocol === "https:" && /^\/in\/[^/]+\/?$/.test(parsed.pathname);
};

/**
 * An AI article's own LinkedIn post: https on linkedin.com, and a post, not a
 * profile or a search (docs/product.md, "MechFusionAI").
 */
const linkedInPostSchema = url.refine((value) => {
  const parsed = new URL(value);
  return (
    parsed.protocol === "https:" &&
    linkedInHost.test(parsed.hostname) &&
    /^\/(?:posts|pulse|feed\/update)\/[^/]+/.test(parsed.pathname)
  );
}, "must be the https address of a LinkedIn post or article (linkedin.com/posts/…, /pulse/… or /feed/update/…)");

const technicalTabIds = ["introduction", "engines", "electric-vehicles", "fuel-cells"] as const;

const technicalTabSchema = z.strictObject({
  id: z.enum(technicalTabIds),
  label: text,
  order,
  links: z.array(linkSchema),
});

const technicalArticleSchema = z.strictObject({
  id: idSchema,
  tab: z.enum(["engines", "electric-vehicles", "fuel-cells"]),
  ...card,
  staticReactions: reactionCountsSchema.optional(),
  ...relatedServices,
});

const growthSchema = z.strictObject({
  id: idSchema,
  ...card,
  link: linkSchema,
  ...relatedServices,
});

const softSkillSchema = z.strictObject({ title: text, order, ...dates, ...relatedServices });

const storySchema = z.strictObject({
  id: idSchema,
  epic: z.enum(["ramayana", "mahabharata"]),
  ...card,
  image: imageSchema,
  ...relatedServices,
});

const aiIntroSchema = z.strictObject({
  title: text,
  description: text.max(160),
  image: imageSchema,
  panelTitle: text,
  panelPoints: z.array(text).min(3),
});

const aiArticleSchema = z.strictObject({
  id: idSchema,
  title: text,
  icon: iconSchema,
  order,
  ...dates,
  summary: text,
  /** A page on the article's subject, never LinkedIn. */
  link: url.refine(
    (value) => !/^https?:\/\/([a-z]+\.)?linkedin\.com\//.test(value),
    "a page on the article's subject; the owner's LinkedIn post goes in linkedin",
  ),
  /** The owner's LinkedIn post on this article's topic, shown as "Read More on LinkedIn". */
  linkedin: linkedInPostSchema.optional(),
  ...relatedServices,
});

const scienceSchema = z.strictObject({
  id: idSchema,
  kind: z.enum(["question", "invention"]),
  ...card,
  image: imageSchema,
  ...relatedServices,
});

/**
 * What a service costs, as the owner chooses to say it: "on request", a price
 * from which engagements start, or a range; in a currency's ISO code, for a
 * unit of work ("per training day", "for one assembly").
 */
export const servicePriceSchema = z.union(
  [
    z.literal("on request"),
    z
      .strictObject({
        currency: z.string().regex(/^[A-Z]{3}$/, "must be an ISO 4217 code such as INR"),
        from: z.number().int().positive(),
        to: z.number().int().positive().optional(),
        per: text.max(80),
      })
      .refine((price) => price.to === undefined || price.to > price.from, {
        message: "to must be above from",
        path: ["to"],
      }),
  ],
  {
    error:
      'must be "on request", or {currency, from, per} with an optional to: {currency: INR, from: 45000, per: "per training day"}',
  },
);

const serviceSchema = z.strictObject({
  id: idSchema,
  icon: iconSchema,
  title: text,
  order,
  /** The card's text on /services, and the page's meta description: no stories from practice. */
  description: text,
  features: z.array(text).min(1),
  price: servicePriceSchema,
  /** How long a typical engagement runs: "2 to 6 weeks". */
  duration: text.max(80),
  /** Remote, on site, or both, and from where. */
  where: text.max(160),
});

export type Image = z.output<typeof imageSchema>;
export type Link = z.output<typeof linkSchema>;
export type IconName = z.output<typeof iconSchema>;

/**
 * Every collection (FORMAT.md): the files below content/ it holds, its schema, and
 * how far its Markdown headings sit below the title that holds them (1 unless said).
 * The one list that Astro's content collections (app/content.config.ts) and the
 * reader outside Astro (content/load.ts) both read, so the two never disagree.
 */
export const collections = {
  home: { files: "home.md", schema: homeSchema, headings: 0 },
  quotes: { files: "quotes.md", schema: quotesSchema, headings: 0 },
  about: { files: "about.md", schema: aboutSchema, headings: 0 },
  technicalTabs: { files: "technical/tabs/*.md", schema: technicalTabSchema },
  technicalArticles: { files: "technical/articles/*.md", schema: technicalArticleSchema },
  growth: { files: "non-technical/growth/*.md", schema: growthSchema },
  softSkills: { files: "non-technical/soft-skills/*.md", schema: softSkillSchema },
  stories: { files: "mythology/*.md", schema: storySchema, headings: 2 },
  aiIntro: { files: "mechfusion-ai/intro.md", schema: aiIntroSchema, headings: 0 },
  aiArticles: { files: "mechfusion-ai/articles/*.md", schema: aiArticleSchema },
  science: { files: "science/*.md", schema: scienceSchema },
  services: { files: "services/*.md", schema: serviceSchema },
} as const satisfies Record<string, CollectionSpec>;

export type CollectionSpec = { files: string; schema: z.ZodObject; headings?: number };
export type Collections = typeof collections;
export type CollectionName = keyof Collections;
