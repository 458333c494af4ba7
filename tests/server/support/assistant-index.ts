import { loadContent } from "../../../content/load.ts";
import { resolveOwner } from "../../../content/owner.ts";
import { sitePassages } from "../../../server/assistant/passages.ts";
import { serializeIndex } from "../../../server/assistant/retrieval.ts";

/** Each service read from its card on /services, as a site built without service pages has it. */
const onCards = (id: string) => `/services#${id}`;

/** The site's passages as the build cuts them, the owner as the sample profile says. */
export function testPassages(servicePage: (id: string) => string = onCards) {
  const content = loadContent();
  return sitePassages(content, { servicePage, owner: resolveOwner(content.owner, {}) });
}

/** The assistant's index as the build writes it. */
export const testIndexJson = (servicePage?: (id: string) => string) =>
  serializeIndex(testPassages(servicePage));
