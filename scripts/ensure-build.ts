import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { loadConfigOrExit } from "../server/startup-line.ts";

/**
 * `npm start` builds the site when it is missing or older than its sources or
 * settings, and the server's bundle when it is older than the server's
 * sources (docs/decisions/039-server-bundle.md). With `--browser-tests`, the
 * browser tests' build (`browserTestsFlag`), with its bundle in a folder of its
 * own (`testsServerBuildDir`).
 * Settings the server would refuse stop it before a build of minutes.
 */
const forBrowserTests = process.argv.includes("--browser-tests");
loadConfigOrExit(process.env, { productionRules: !forBrowserTests });
const { browserTestsFlag, buildDir, buildInputsHash, clientDir, projectRoot, stampFile } =
  await import("./build-inputs.ts");
const { buildServer, serverBuildCurrent, serverBuildDir, testsServerBuildDir } = await import(
  "./build-server.ts"
);
const current =
  existsSync(path.join(clientDir, "index.html")) &&
  existsSync(stampFile) &&
  existsSync(path.join(projectRoot, "build/spam-model.json"))
    ? readFileSync(stampFile, "utf8")
    : null;

if (current !== buildInputsHash(process.env, { forBrowserTests })) {
  console.info(
    current ? "Sources or settings changed: rebuilding the site…" : "Building the site…",
  );
  try {
    execFileSync(
      process.execPath,
      [path.join(projectRoot, "scripts/build.ts"), ...(forBrowserTests ? [browserTestsFlag] : [])],
      { stdio: "inherit" },
    );
  } catch (error) {
    // The build has said why; its status is the answer.
    process.exit((error as { status?: number | null }).status ?? 1);
  }
}

const bundleDir = forBrowserTests ? testsServerBuildDir(buildDir) : serverBuildDir;
if (!serverBuildCurrent(bundleDir)) {
  console.info("Bundling the server…");
  await buildServer(bundleDir, { commandLine: forBrowserTests });
}
