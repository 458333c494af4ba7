import path from "node:path";

/**
 * The assistant's passages and their index, written by the build beside the
 * pages (not among them: it is read by the server, not served). Apart from
 * index-file.ts, which the build runs, so that the server's start loads none
 * of the content's Markdown.
 */
export const assistantIndexFile = (buildDir: string) => path.join(buildDir, "assistant-index.json");
