import { execFileSync } from "node:child_process";
import path from "node:path";
import { browserTestsFlag, projectRoot } from "../../../scripts/build-inputs.ts";
import { siteEnv } from "./site.ts";

/**
 * Builds the site with the browser tests' settings unless it already is: the
 * same check the browser tests' servers make before they start, so they then
 * serve this build as it is. It is the browser tests' build (`browserTestsFlag`):
 * no gzip copies, and the server's bundle beside its pages, which those servers run.
 */
execFileSync(
  process.execPath,
  [path.join(projectRoot, "scripts/ensure-build.ts"), browserTestsFlag],
  { env: { ...process.env, ...siteEnv }, stdio: "inherit" },
);
