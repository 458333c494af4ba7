import { execFileSync } from "node:child_process";
import path from "node:path";
import { projectRoot } from "../../../scripts/build-inputs.ts";
import { siteEnv } from "./site.ts";

/**
 * Builds the site with the browser tests' settings unless it already is: the
 * same check the browser tests' servers make before they start, so they then
 * serve this build as it is.
 */
execFileSync(process.execPath, [path.join(projectRoot, "scripts/ensure-build.ts")], {
  env: { ...process.env, ...siteEnv },
  stdio: "inherit",
});
