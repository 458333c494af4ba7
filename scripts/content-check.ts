import { ContentError, loadContent } from "../content/load.ts";
import { collectionShortfalls } from "./content-minimums.ts";

try {
  const content = loadContent();
  const shortfalls = collectionShortfalls(content);
  if (shortfalls.length > 0) {
    console.error(shortfalls.join("\n"));
    process.exit(1);
  }
  const count =
    5 +
    content.technical.tabs.length +
    content.technical.articles.length +
    content.growth.length +
    content.softSkills.length +
    content.stories.length +
    content.ai.articles.length +
    content.science.length +
    content.services.length;
  console.info(`content OK: ${count} files valid`);
} catch (error) {
  if (error instanceof ContentError) {
    console.error(error.message);
    process.exit(1);
  }
  throw error;
}
