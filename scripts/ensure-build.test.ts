import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
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

/** Runs ensure-build; stops it as soon as it starts building. */
function ensureBuild(env: Record<string, string>) {
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    const child = spawn(process.execPath, [path.join(projectRoot, "scripts/ensure-build.ts")], {
      env: { PATH: process.env.PATH, BUILD_DIR: buildDir, ...env },
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk) => {
      stdout += chunk;
      if (stdout.includes("Building")) child.kill();
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
