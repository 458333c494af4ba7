import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import playwrightConfig from "../playwright.config.ts";
import { loadConfig } from "../server/config.ts";
import { siteEnv, siteServer } from "../tests/e2e/support/site.ts";
import { browserTestsFlag, projectRoot } from "./build-inputs.ts";
import { startEnvironment, startFlags } from "./build-server.ts";

/*
 * `npm test` builds the site with the browser tests' address and settings. A
 * site started with `npm start` in the same checkout serves build/client: the
 * tests must build, and serve, somewhere else, or the running site would then
 * serve the tests' canonical URLs, contact address and script hashes.
 */
const site = loadConfig({}, { productionRules: false });
const inside = (child: string, parent: string) =>
  !path.relative(parent, child).startsWith("..") && !path.isAbsolute(path.relative(parent, child));

describe("the browser tests' build", () => {
  const tests = loadConfig(siteEnv, { productionRules: false });

  it("goes to a folder of its own, apart from the site's build/client", () => {
    expect(site.clientRoot).toBe(path.join(projectRoot, "build/client"));
    expect(tests.clientRoot).not.toBe(site.clientRoot);
    expect(inside(tests.clientRoot, site.clientRoot)).toBe(false);
    expect(inside(site.clientRoot, tests.clientRoot)).toBe(false);
    expect(tests.buildDir).not.toBe(site.buildDir);
  });

  it("is what every server of the browser tests builds and serves", () => {
    const servers = [playwrightConfig.webServer ?? []].flat();
    expect(servers.length).toBeGreaterThan(0);
    for (const server of servers) {
      expect(server.command).toContain(`scripts/ensure-build.ts ${browserTestsFlag}`);
      expect(server.env?.BUILD_DIR).toBe(siteEnv.BUILD_DIR);
      expect(server.env?.CLIENT_ROOT).toBeUndefined();
    }
  });

  it("holds the server's bundle, which its sites run as npm start runs build/server's", () => {
    expect(siteServer).toEqual({
      env: startEnvironment(),
      args: [...startFlags(), path.join(tests.buildDir, "server", "main.js")],
    });
    const [shared] = [playwrightConfig.webServer ?? []].flat();
    expect(shared?.command).toMatch(
      /&& node '--max-semi-space-size=2' '--expose-gc' '[^']+\/build\/e2e\/server\/main\.js'$/,
    );
    expect(shared?.env).toMatchObject(startEnvironment());
  });

  it("is the folder npm test exports to the rest of its run (the size check included)", () => {
    const script = readFileSync(path.join(projectRoot, "scripts/test.sh"), "utf8");
    const exported = /^export BUILD_DIR=(\S+)$/m.exec(script)?.[1];
    expect(exported).toBe(siteEnv.BUILD_DIR);
    // Exported before anything builds or measures.
    expect(script.indexOf("export BUILD_DIR=")).toBeLessThan(script.indexOf("build-site.ts"));
  });
});

describe("BUILD_DIR", () => {
  it("is relative to the project's folder, or absolute; CLIENT_ROOT overrides where pages are served from", () => {
    expect(loadConfig({ BUILD_DIR: "elsewhere" }).clientRoot).toBe(
      path.join(projectRoot, "elsewhere/client"),
    );
    expect(loadConfig({ BUILD_DIR: "/srv/site" }).clientRoot).toBe("/srv/site/client");
    expect(loadConfig({ BUILD_DIR: "/srv/site", CLIENT_ROOT: "/srv/pages" }).clientRoot).toBe(
      "/srv/pages",
    );
  });
});
