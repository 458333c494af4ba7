import os from "node:os";
import path from "node:path";

/**
 * Node's compile cache for every Node process a test run starts: the same
 * folder the server and the admin command line use by default
 * (docs/decisions/038-start-and-idle.md), so that each compiles the server,
 * its packages and the test runners' own code once and later starts read it
 * back. Set in the environment, it holds from a process's first line, which
 * `module.enableCompileCache()` in server/main.ts cannot.
 */
export const compileCacheDir =
  process.env.NODE_COMPILE_CACHE ?? path.join(os.tmpdir(), "node-compile-cache");
