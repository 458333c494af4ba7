import path from "node:path";
import { bundledServer } from "../../../scripts/build-server.ts";
import { projectRoot } from "../../support/server-process.ts";

/*
 * The site the browser tests build and serve: its address and settings, read
 * by playwright.config.ts and by build-site.ts (which `npm test` runs early,
 * so the build overlaps the checks before the browser tests).
 */

// E2E_PORT lets two checkouts run their browser tests side by side.
export const port = Number(process.env.E2E_PORT ?? 4173);
export const baseURL = `http://127.0.0.1:${port}`;
/** The same site on PostgreSQL, for the engagement tests. */
export const postgresPort = port + 1;

/**
 * The settings the browser tests build and serve the site with: as a fresh
 * install has them, no third-party chatbot, so /services holds the site's own
 * assistant (the third-party embed is tested on its own,
 * app/features/chatbot/chatbot-embed.test.tsx).
 */
export const siteEnv = {
  // The tests' build has the tests' address and settings baked in: it goes to
  // a folder of its own, so a site served from build/client in the same
  // checkout keeps its pages (scripts/test.sh exports the same folder).
  BUILD_DIR: "build/e2e",
  SITE_URL: baseURL,
  CONTACT_EMAIL: "owner@example.com",
  OWNER_LINKEDIN_URL: "https://www.linkedin.com/in/engage-with-engineer-test",
  // These tests comment faster than a person. A quarter of a second keeps every
  // form's signed time in play (fetched, waited out by the page, checked and
  // spent by the server) without a second's wait before each of the suite's
  // writes; the comment form's own timing is tested at its default (3 s) in
  // moderation.spec.ts, on a server of its own. Specs whose own servers check
  // the forms' signed times take this figure too.
  COMMENT_MIN_SECONDS: "0.25",
  // Every browser here writes from 127.0.0.1, as a whole office would: the address's
  // allowance, and its second's share, would have the tests refuse one another. A
  // visitor's own is kept (engagement.spec.ts, "a rate-limited reader").
  RATE_LIMIT_WRITES_PER_IP: "1000000",
};

/**
 * Every site the browser tests start runs the server as `npm start` does: the
 * bundle their build made (build/e2e/server/main.js) with its Node flags and
 * environment, so the tests exercise what is deployed
 * (docs/decisions/067-axe-per-layout-and-tests-on-the-bundle.md). The
 * settings they give it are the ones an operator has (docs/configuration.md).
 */
export const siteServer = bundledServer(path.join(projectRoot, siteEnv.BUILD_DIR));
