import { Problems } from "../content/frontmatter.ts";
import { exitOnContentError, loadContent } from "../content/load.ts";
import { findSamplePassages, listSamplePassages, writingFolders } from "../content/sample-voice.ts";
import { checkSiteLinks } from "../content/site-links.ts";
import { collectionShortfalls, pieceShortfalls } from "./content-minimums.ts";

// Every problem in one run: the content's, the editions', the collections' and the pieces' sizes.
exitOnContentError(() => {
  const problems = new Problems();
  const loaded = problems.attempt(() => loadContent(), undefined);
  // The sample engineer's stories, in the writing and the newsletter's editions
  // (content/'s markers were checked with the content, so only the editions' when it failed).
  const folders = writingFolders(process.env.EDITIONS_DIR).filter(
    ({ label }) => loaded !== undefined || label !== "content",
  );
  const passages = problems.attempt(() => findSamplePassages(folders), []);
  if (loaded) problems.attempt(() => checkSiteLinks(loaded), undefined);
  for (const shortfall of loaded
    ? [...collectionShortfalls(loaded), ...pieceShortfalls(loaded)]
    : [])
    problems.add(shortfall);
  problems.throwAny();
  const content = loaded as NonNullable<typeof loaded>;
  const count =
    6 +
    content.technical.tabs.length +
    content.technical.articles.length +
    content.growth.length +
    content.softSkills.length +
    content.stories.length +
    content.ai.articles.length +
    content.science.length +
    content.services.length;
  const dates = {
    full: "dates checked against each file's first commit",
    shallow:
      "a shallow clone: dates checked against the commits it holds (git fetch --unshallow checks them all)",
    none: "no git history here: the frontmatter dates stand",
  }[content.history];
  console.info(`content OK: ${count} files valid; ${dates}`);
  if (content.owner.sample) {
    console.info(
      "content/owner.md is the sample profile: replace it with yours before going live (README, First run)",
    );
  }
  if (passages.length > 0) {
    const remain = listSamplePassages(passages);
    if (content.owner.sample) console.info(remain);
    else {
      console.error(`content/owner.md is your own profile, but ${remain}`);
      process.exit(1);
    }
  }
});
