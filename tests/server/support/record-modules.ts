import { appendFileSync } from "node:fs";
import module from "node:module";

/*
 * Preloaded with `node --import` into a command line run by a test: appends the
 * address of every module the process loads (Node's own excepted) to the file
 * RECORD_MODULES names, so the test can tell what a command loaded.
 */
const record = process.env.RECORD_MODULES;
if (record) {
  module.registerHooks({
    load(url, context, nextLoad) {
      if (!url.startsWith("node:")) appendFileSync(record, `${url}\n`);
      return nextLoad(url, context);
    },
  });
}
