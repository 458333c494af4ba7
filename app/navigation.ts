/** The eight pages of the site, in sidebar order (docs/product.md, "Pages"). */
export const mainRoutes = [
  { label: "Home", path: "/" },
  { label: "About Me", path: "/about" },
  { label: "Technical", path: "/technical" },
  { label: "Non Technical", path: "/non-technical" },
  { label: "Mythological Inspirations", path: "/mythology" },
  { label: "MechFusionAI", path: "/mechfusion-ai" },
  { label: "Science in Everyday", path: "/science" },
  { label: "Services", path: "/services" },
] as const;

export const legalRoutes = [
  { label: "Privacy Policy", path: "/privacy" },
  { label: "Terms of Service", path: "/terms" },
  { label: "Your data", path: "/your-data" },
] as const;

/**
 * Pages prerendered but not in menus or the sitemap, and kept out of search
 * engines: one reached only from links sent by email, and the search page,
 * which the header's Search link leads to.
 */
export const unlistedRoutes = [
  { label: "Unsubscribe", path: "/unsubscribe" },
  { label: "Search", path: "/search" },
] as const;

/**
 * The section a page belongs to, by the first part of its path
 * (`/science/pressure-cooker`: "Science in Everyday"); the search's results
 * name it (docs/product.md, "Search").
 */
export function sectionOf(path: string): string | null {
  const first = `/${path.split("/")[1] ?? ""}`;
  return [...mainRoutes, ...legalRoutes].find((route) => route.path === first)?.label ?? null;
}

/** The paths search engines are told about (sitemap.xml). */
export const listedPaths = [...mainRoutes, ...legalRoutes].map((route) => route.path);

/** Every path that is prerendered to its own HTML file. */
export const prerenderedPaths = [...listedPaths, ...unlistedRoutes.map((route) => route.path)];
