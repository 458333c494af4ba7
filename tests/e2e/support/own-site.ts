import { execFile, execFileSync } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import {
  type APIRequestContext,
  type BrowserContextOptions,
  devices,
  expect,
  type Page,
  request,
} from "@playwright/test";
import { commentResponseSchema } from "../../../contract/api.ts";
import { bundledCommandLine } from "../../../scripts/build-server.ts";
import { compileCacheDir } from "../../support/compile-cache.ts";
import { freePort } from "../../support/postgres.ts";
import {
  fakedClock,
  generousLimits,
  projectRoot,
  type ServerProcess,
  startServerProcess,
} from "../../support/server-process.ts";
import type { OpenVisitor } from "./fixtures.ts";
import { siteEnv, siteServer } from "./site.ts";

/**
 * A spec's own server on the built site, and what the owner's command line
 * needs to reach its data: the data folder, and the database when it is PostgreSQL.
 */
export type OwnSite = ServerProcess & { dataDir: string; databaseUrl?: string };

type OwnSiteOptions = {
  /** Settings on top of the ones below. */
  env?: Record<string, string>;
  /**
   * The SITE_URL's host. The console needs `localhost`: WebAuthn refuses IP
   * addresses as relying parties. The server listens on 127.0.0.1 either way.
   */
  host?: "127.0.0.1" | "localhost";
  /**
   * Run with the write limits a deployed site has. By default the limits are
   * generous, so a test can write many comments through the API in a moment.
   */
  defaultLimits?: boolean;
};

/**
 * The built site on a server of a spec's own (the bundle, as every site of
 * the browser tests runs: `siteServer`): for settings the shared
 * servers do not have, for the owner's command line on its data, and for
 * seeding a long discussion, which on the shared servers would spend the write
 * limits every other spec shares.
 */
export async function startOwnSite(
  name: string,
  { env = {}, host = "127.0.0.1", defaultLimits = false }: OwnSiteOptions = {},
): Promise<OwnSite> {
  const dataDir = mkdtempSync(path.join(tmpdir(), `ewe-e2e-${name}-`));
  // The site's address names its port, so the port is chosen before the
  // server starts; another process may take it in between, on a busy machine.
  for (let attempt = 1; ; attempt++) {
    const port = await freePort();
    try {
      const server = await startServerProcess({
        args: siteServer.args,
        env: {
          ...siteServer.env,
          ...(defaultLimits ? {} : generousLimits),
          // The browser tests' build (never the site's own build/client).
          BUILD_DIR: siteEnv.BUILD_DIR,
          PORT: String(port),
          SITE_URL: `http://${host}:${port}`,
          DATA_DIR: dataDir,
          LOG_LEVEL: "info",
          NODE_COMPILE_CACHE: compileCacheDir,
          ...env,
        },
        startTimeoutMs: 60_000,
      });
      return { ...server, dataDir, databaseUrl: env.DATABASE_URL };
    } catch (error) {
      if (attempt >= 3 || !String(error).includes("EADDRINUSE")) throw error;
    }
  }
}

/**
 * The command line's program and environment on a spec's own site: its bundle
 * in the tests' build, as the site runs the server's
 * (docs/decisions/073-the-browser-tests-command-line-bundled.md).
 */
const cliOf = (site: OwnSite, argv: string[]) =>
  [
    process.execPath,
    [bundledCommandLine(path.join(projectRoot, siteEnv.BUILD_DIR)), ...argv],
    {
      env: {
        PATH: process.env.PATH ?? "",
        ...fakedClock(),
        NODE_COMPILE_CACHE: compileCacheDir,
        DATA_DIR: site.dataDir,
        SITE_URL: site.siteUrl,
        ...(site.databaseUrl ? { DATABASE_URL: site.databaseUrl } : {}),
      },
      encoding: "utf8",
    },
  ] as const;

/** `npm run admin -- <argv>` on a spec's own site, as the owner runs it while the site serves; what it prints. */
export function ownerCli(site: OwnSite, ...argv: string[]): string {
  const [program, args, options] = cliOf(site, argv);
  return execFileSync(program, args, { ...options, stdio: ["ignore", "pipe", "pipe"] });
}

/** `ownerCli` without waiting for it: several at once, each its own process. */
export async function ownerCliAsync(site: OwnSite, ...argv: string[]): Promise<string> {
  return (await promisify(execFile)(...cliOf(site, argv))).stdout;
}

/** Opens a one-time sign-in link (`npm run admin -- login`) and presses Sign in: the console's Overview. */
export async function signInWith(page: Page, link: string) {
  await page.goto(link);
  await page.getByRole("button", { name: "Sign in", exact: true }).click();
  await expect(page.getByRole("heading", { name: "Overview", level: 1 })).toBeVisible();
}

type StorageState = Exclude<BrowserContextOptions["storageState"], string | undefined>;

/** Each site's signed-in owner, by the site: one sign-in per site and worker. */
const ownerStates = new WeakMap<OwnSite, Promise<StorageState>>();

/**
 * The owner's signed-in browser state on `site`, for a test that needs only
 * to be signed in: once per site, the command line's link is sent as the
 * sign-in page sends it when Sign in is pressed, from Chromium's user agent
 * (the session's device), and every later test starts from its session cookie
 * (docs/decisions/028-how-the-suite-stays-fast.md). Pressing Sign in on the
 * page is tested where signing in is (console.spec.ts,
 * console-approval.spec.ts, clean-console.spec.ts), which sign in for
 * themselves (`signInWith`), as does a test that signs out.
 */
export function ownerState(site: OwnSite): Promise<StorageState> {
  let state = ownerStates.get(site);
  if (!state) {
    state = (async () => {
      const token = new URL(ownerCli(site, "login").trim()).hash.replace(/^#token=/, "");
      const api = await request.newContext({ userAgent: devices["Desktop Chrome"].userAgent });
      try {
        const answer = await api.post(`${site.siteUrl}/api/admin/sign-in`, {
          data: { token },
          headers: { origin: site.siteUrl },
        });
        expect(answer.status(), await answer.text()).toBe(200);
        return await api.storageState();
      } finally {
        await api.dispose();
      }
    })();
    // A failed sign-in is tried again by the next test, not handed on to it.
    state.catch(() => ownerStates.delete(site));
    ownerStates.set(site, state);
  }
  return state;
}

/**
 * A browser of its own (the `visitor` fixture, with `options`), signed in as
 * the owner of `site` (`ownerState`), at `path`.
 */
export async function ownerPage(
  visitor: OpenVisitor,
  site: OwnSite,
  path = "/admin",
  options: BrowserContextOptions = {},
): Promise<Page> {
  const page = await visitor({ ...options, storageState: await ownerState(site) });
  await page.goto(`${site.siteUrl}${path}`);
  return page;
}

/** Posts one comment through the API, as a page of `site` does; returns it. */
export async function postTo(
  request: APIRequestContext,
  site: ServerProcess,
  postId: string,
  body: { content: string; userName: string },
): Promise<{ id: number; content: string }> {
  const response = await request.post(`${site.url}/api/items/science/${postId}/comments`, {
    data: body,
    headers: { origin: site.siteUrl },
  });
  expect(response.status(), await response.text()).toBe(201);
  return commentResponseSchema.parse(await response.json()).comment;
}

/** Chromium's virtual authenticator on `page`, which answers WebAuthn by itself. */
export async function withAuthenticator(page: Page) {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send("WebAuthn.enable");
  await cdp.send("WebAuthn.addVirtualAuthenticator", {
    options: {
      protocol: "ctap2",
      transport: "internal",
      hasResidentKey: true,
      hasUserVerification: true,
      isUserVerified: true,
      automaticPresenceSimulation: true,
    },
  });
}
