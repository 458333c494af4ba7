/*
 * The readers' beacon, and the page it is sent from, as a browser asks for them
 * (docs/decisions/044-readers-without-cookies.md, 079): a page view of /science from
 * Chrome on Linux in London, from the site's own pages. The headers are those
 * Chromium sends with `sendBeacon` and with a click on a link to the site's
 * page (taken from its requests to a server of ours, in their order), with a
 * stable Chrome's version and no cookie: every header is work for the server's
 * parser, and a bench that sends fewer measures a lighter request than a reader's.
 */

/** The beacon's request as the pages' script sends it: every field named, `r` and `q` empty. */
export const viewPath = "/api/readers/view?p=%2Fscience&r=&q=&z=Europe%2FLondon";

const chrome = {
  "sec-ch-ua-platform": '"Linux"',
  "user-agent":
    "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36",
  "sec-ch-ua": '"Google Chrome";v="131", "Chromium";v="131", "Not_A Brand";v="24"',
  "sec-ch-ua-mobile": "?0",
};

/** `sendBeacon`'s headers from /science on the site at `origin` (wrk adds Host and Connection). */
export const viewHeaders = (origin: string) => ({
  "content-length": "0",
  ...chrome,
  accept: "*/*",
  origin,
  "sec-fetch-site": "same-origin",
  "sec-fetch-mode": "no-cors",
  "sec-fetch-dest": "empty",
  referer: `${origin}/science`,
  "accept-encoding": "gzip, deflate, br, zstd",
  "accept-language": "en-GB,en;q=0.9",
});

/** A page of the site at `origin` opened from another of its pages, as Chrome asks for it. */
export const pageHeaders = (origin: string) => ({
  ...chrome,
  "upgrade-insecure-requests": "1",
  accept:
    "text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,image/apng,*/*;q=0.8,application/signed-exchange;v=b3;q=0.7",
  "sec-fetch-site": "same-origin",
  "sec-fetch-mode": "navigate",
  "sec-fetch-user": "?1",
  "sec-fetch-dest": "document",
  referer: `${origin}/science`,
  "accept-encoding": "gzip, deflate, br, zstd",
  "accept-language": "en-GB,en;q=0.9",
});

/** A read of the site's API at `origin` by its own pages' script (`fetch`, same origin), as Chrome asks for it. */
export const apiHeaders = (origin: string) => ({
  ...chrome,
  accept: "application/json",
  "sec-fetch-site": "same-origin",
  "sec-fetch-mode": "cors",
  "sec-fetch-dest": "empty",
  referer: `${origin}/science/ironing`,
  "accept-encoding": "gzip, deflate, br, zstd",
  "accept-language": "en-GB,en;q=0.9",
});

/** Every view comes from one address: counted, all of them, as views from many would be. */
export const viewsUnlimited = { ANALYTICS_VIEWS_PER_MINUTE_PER_IP: "100000000" };
