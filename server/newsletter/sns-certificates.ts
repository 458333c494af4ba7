import { perMinute } from "../lib/per-minute.ts";

/**
 * SNS's signing certificates, fetched from Amazon's hosts by the address a
 * message names (docs/mail.md, "Bounces and complaints"). Anyone can post to
 * `/hooks/ses` naming the site's topic and a new address on an SNS host each
 * time, so a fetch is not made for each post:
 * - a certificate fetched is kept by its address (SNS signs with a few, for
 *   years), and a fetch under way is shared by the posts that name it;
 * - an address whose fetch failed is remembered so for `failureKeptMs`;
 * - the fetches a network's posts may cause are `fetchesPerNetworkPerMinute`,
 *   and a fetch whose message then holds is given back, so that SNS's own
 *   deliveries are never held back by their new certificate. Past that, the
 *   network's posts naming an address not kept are answered 429 unread.
 */

/** Fetches of certificates not kept, a minute, that one network's posts may cause. */
const fetchesPerNetworkPerMinute = 5;
/** How long an address whose certificate could not be fetched is not asked again. */
const failureKeptMs = 60_000;
/** Certificates kept: SNS signs with one a region at a time. */
const certificatesKept = 20;
/** Networks and failed addresses counted at once; the counts start afresh past it. */
const entriesKept = 10_000;

export type SnsTrust = {
  /** Hosts the signing certificate may come from. */
  certificateHost: RegExp;
  /** Extra certificate authority for fetching it (tests run their own host). */
  ca?: string;
};

/**
 * SNS's regional hosts, `sns.eu-west-1.amazonaws.com`: the label between is a
 * region's name, two letters first. Any label would do for an S3 bucket named
 * `sns` (`sns.s3.amazonaws.com`, `sns.s3-eu-west-1.amazonaws.com`), which
 * anyone may own, with a certificate of their own making on it.
 */
export const amazonSnsHosts: SnsTrust = {
  certificateHost: /^sns\.[a-z]{2}(-[a-z]+)+-\d+\.amazonaws\.com(\.cn)?$/,
};

/** The certificate, or that it could not be had, or the seconds until the network may fetch again. */
export type Certificate =
  | { pem: string; giveBack: () => void }
  | { failed: true }
  | { retryAfter: number };

export function httpsText(url: URL, ca: string | undefined): Promise<string> {
  return new Promise((resolve, reject) => {
    // Loaded here: a start that never verifies a certificate loads no TLS (docs/decisions/038-start-and-idle.md).
    const { get } = process.getBuiltinModule("node:https");
    const request = get(url, { timeout: 10_000, ...(ca ? { ca } : {}) }, (response) => {
      if (response.statusCode !== 200) {
        response.resume();
        reject(new Error(`${url.host} answered ${response.statusCode}`));
        return;
      }
      let text = "";
      response.setEncoding("utf8");
      response.on("data", (chunk: string) => {
        text += chunk;
        if (text.length > 16_384) request.destroy(new Error("too long"));
      });
      response.on("end", () => resolve(text));
    });
    request.on("timeout", () => request.destroy(new Error("timed out")));
    request.on("error", reject);
  });
}

export function snsCertificates(trust: SnsTrust, onFailure: (error: unknown) => void) {
  const kept = new Map<string, string>();
  const fetching = new Map<string, Promise<string>>();
  /** Addresses whose fetch failed, with when they may be asked again. */
  const failed = new Map<string, number>();
  /** Fetches caused by each network's posts this minute. */
  const fetches = perMinute(fetchesPerNetworkPerMinute, entriesKept);

  return async function certificate(url: URL, network: string): Promise<Certificate> {
    const { href } = url;
    const pem = kept.get(href);
    if (pem) return { pem, giveBack: () => {} };
    if ((failed.get(href) ?? 0) > Date.now()) return { failed: true };
    let shared = fetching.get(href);
    let giveBack = () => {};
    if (!shared) {
      const taken = fetches.take(network);
      if ("retryAfter" in taken) return taken;
      giveBack = taken.giveBack;
      shared = httpsText(url, trust.ca)
        .then(
          (fetched) => {
            if (kept.size >= certificatesKept) kept.clear();
            kept.set(href, fetched);
            return fetched;
          },
          (error: unknown) => {
            onFailure(error);
            if (failed.size >= entriesKept) failed.clear();
            failed.set(href, Date.now() + failureKeptMs);
            throw error;
          },
        )
        .finally(() => fetching.delete(href));
      fetching.set(href, shared);
    }
    try {
      return { pem: await shared, giveBack };
    } catch {
      return { failed: true };
    }
  };
}
