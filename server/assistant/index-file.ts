import { existsSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { SiteContent } from "../../content/load.ts";
import type { Owner } from "../../content/owner.ts";
import { sitePassages } from "./passages.ts";
import { assistantIndexFile, serializeIndex } from "./retrieval.ts";

/** Where a service is read: its own page when the build has one, else its card on /services. */
export const servicePageIn = (clientDir: string) => (id: string) =>
  existsSync(path.join(clientDir, "services", id, "index.html"))
    ? `/services/${id}`
    : `/services#${id}`;

export function writeAssistantIndex(
  content: SiteContent,
  owner: Owner,
  { buildDir, clientDir }: { buildDir: string; clientDir: string },
) {
  const passages = sitePassages(content, { servicePage: servicePageIn(clientDir), owner });
  writeFileSync(assistantIndexFile(buildDir), serializeIndex(passages));
  return passages.length;
}
