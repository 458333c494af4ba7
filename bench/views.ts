/*
 * The readers' beacon as the bench sends it (docs/decisions/044-readers-without-cookies.md):
 * a page view of /science from a browser in London, from the site's own pages.
 */

/** The beacon's request: its path and query. */
export const viewPath = "/api/readers/view?p=%2Fscience&z=Europe%2FLondon";

/** A browser's headers on the site at `origin`. */
export const viewHeaders = (origin: string) => ({
  origin,
  "user-agent":
    "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36",
});

/** Every view comes from one address: counted, all of them, as views from many would be. */
export const viewsUnlimited = { ANALYTICS_VIEWS_PER_MINUTE_PER_IP: "100000000" };
