/*
 * Where an AI article sends a reader who wants more (docs/product.md,
 * "MechFusionAI"): the owner's LinkedIn post on its topic, else the owner's
 * LinkedIn profile, else a page on its subject. The intro's sentence about
 * these links is written from the same choice, so it always says what the
 * page does.
 */

type ReadFurther = {
  kind: "post" | "profile" | "subject";
  label: string;
  url: string;
};

const labels = {
  post: "Read More on LinkedIn",
  profile: "Find me on LinkedIn",
  subject: "Read more",
} as const;

export function readFurther(
  article: { linkedin?: string | undefined; link: string },
  ownerLinkedIn: string | null,
): ReadFurther {
  const [kind, url] = article.linkedin
    ? (["post", article.linkedin] as const)
    : ownerLinkedIn
      ? (["profile", ownerLinkedIn] as const)
      : (["subject", article.link] as const);
  return { kind, label: labels[kind], url };
}

const endings = {
  post: "my LinkedIn post on its topic, where the discussion continues",
  profile: "my LinkedIn profile, where I write about these subjects",
  subject: "a page on its subject for further reading",
} as const;

/** What the intro says about the links, true of every article below it. */
export function readFurtherSentence(links: ReadFurther[]): string {
  const opening = "Each article is a self-contained summary";
  const others = links.find((link) => link.kind !== "post");
  if (links.every((link) => link.kind === links[0]?.kind)) {
    return `${opening} and ends with a link to ${endings[links[0]?.kind ?? "subject"]}.`;
  }
  // Only some articles have a post; the others share one fallback (the profile, or their subject).
  return `${opening}. Where I have written a LinkedIn post on its topic, it ends with a link to that post; the others end with a link to ${endings[others?.kind ?? "subject"]}.`;
}
