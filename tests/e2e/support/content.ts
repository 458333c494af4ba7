import { loadContent } from "../../../content/load.ts";

let read: ReturnType<typeof loadContent> | undefined;

/**
 * content/ as the site's build reads it (`loadContent`), read once per process:
 * the specs that list the site's items and services take it at their top level,
 * and Playwright loads each spec in its runner and again in each worker that
 * runs it. Each read parsed every file's Markdown and asked git for their
 * history again (docs/decisions/028-how-the-suite-stays-fast.md). Read only.
 */
export const siteContent = () => {
  read ??= loadContent();
  return read;
};
