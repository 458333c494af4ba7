import { spawn } from "node:child_process";
import { cpSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { projectRoot } from "./build-inputs.ts";

/*
 * `npm start` runs scripts/ensure-build.ts, which may build for minutes: settings the
 * server would refuse must stop it first, said as the server says them.
 */
const buildDir = mkdtempSync(path.join(tmpdir(), "ensure-build-"));
afterAll(() => rmSync(buildDir, { recursive: true, force: true }));

/** Runs ensure-build (of `root`, a project); stops it as soon as it starts building, unless `build`. */
function ensureBuild(env: Record<string, string>, { root = projectRoot, build = false } = {}) {
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    const child = spawn(process.execPath, [path.join(root, "scripts/ensure-build.ts")], {
      env: { PATH: process.env.PATH, BUILD_DIR: buildDir, ...env },
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk) => {
      stdout += chunk;
      if (!build && stdout.includes("Building")) child.kill();
    });
    child.stderr.on("data", (chunk) => {
      stderr += chunk;
    });
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

describe("npm start with settings the server refuses", () => {
  it("says what is missing in production before building anything", async () => {
    const { code, stdout, stderr } = await ensureBuild({ NODE_ENV: "production" });
    expect(stdout).not.toContain("Building");
    expect(code).toBe(1);
    expect(stderr).toContain("Invalid configuration:");
    expect(stderr).toContain("SITE_URL: is required in production");
  });

  it("names a bad value without a stack trace", async () => {
    const { code, stdout, stderr } = await ensureBuild({ PORT: "abc" });
    expect(stdout).not.toContain("Building");
    expect(code).toBe(1);
    expect(stderr).toMatch(/^Invalid configuration:\n {2}PORT: /);
    expect(stderr).not.toContain("at loadConfig");
  });
});

describe("npm run build with a setting the server refuses", () => {
  it("names it without a stack trace", async () => {
    // What an upgrade from a version that still took TRUST_PROXY=true meets.
    const child = spawn(process.execPath, [path.join(projectRoot, "scripts/build.ts")], {
      env: { PATH: process.env.PATH, BUILD_DIR: buildDir, TRUST_PROXY: "true" },
    });
    let stderr = "";
    child.stderr.on("data", (chunk) => {
      stderr += chunk;
    });
    const code = await new Promise((resolve) => child.on("close", resolve));
    expect(code).toBe(1);
    expect(stderr).toMatch(/^Invalid configuration:\n {2}TRUST_PROXY: true is no longer accepted/);
    expect(stderr).not.toContain("at loadConfig");
  });
});

describe("npm start when the build fails", () => {
  // A copy of the project whose content is broken: its scripts and content copied, the rest linked.
  const root = mkdtempSync(path.join(tmpdir(), "ensure-build-project-"));
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it("ends with the build's own words, not a stack trace of its own", async () => {
    for (const name of ["scripts", "content"]) {
      cpSync(path.join(projectRoot, name), path.join(root, name), { recursive: true });
    }
    for (const name of ["app", "server", "contract", "public", "node_modules", "package.json"]) {
      symlinkSync(path.join(projectRoot, name), path.join(root, name));
    }
    const service = path.join(root, "content/services/vba-tools.md");
    writeFileSync(
      service,
      readFileSync(service, "utf8").replace(/\n## Example\n[\s\S]*?\n## /, "\n## Example\n\n## "),
    );
    const { code, stderr } = await ensureBuild({}, { root, build: true });
    expect(code).toBe(1);
    expect(stderr.trim()).toBe(
      'Content error in content/services/vba-tools.md: the section "## Example" is empty',
    );
  });
});
