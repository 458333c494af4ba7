import { ContentError } from "./frontmatter.ts";
import type { ContentHistory } from "./history.ts";

/*
 * An item's `published` date is the day it first appeared on this site: the
 * date the owner wrote, or else its first commit (docs/decisions/027-owner-profile-and-honest-dates.md).
 * The build refuses a date in the future, and a date before the file's first
 * commit unless the piece is marked `imported: true` (it appeared elsewhere first).
 */

export type DateFields = { published?: string; updated?: string; imported?: boolean };

const day = (date: Date) => date.toISOString().slice(0, 10);

/** The latest calendar day anywhere on Earth (UTC+14): later than that is the future. */
const latestToday = (now: Date) => day(new Date(now.getTime() + 14 * 3600_000));
/** The earliest calendar day anywhere on Earth (UTC-12): a commit made now is dated no earlier. */
const earliestToday = (now: Date) => day(new Date(now.getTime() - 12 * 3600_000));

export function resolveDates(
  file: string,
  fields: DateFields,
  history: ContentHistory,
  now: Date,
): { published: string; updated: string | undefined } {
  const future = latestToday(now);
  const first = history.firstCommit.get(file);
  const known = first !== undefined && !history.beyondBoundary.has(file);
  let published: string;
  if (fields.published !== undefined) {
    published = fields.published;
    if (published > future) {
      throw new ContentError(`${file}: published (${published}) is in the future`);
    }
    if (known && published < first && fields.imported !== true) {
      throw new ContentError(
        `${file}: published (${published}) is earlier than the file's first commit (${first}). ` +
          "Use that date or a later one, or remove published to take it from git; " +
          "if the piece appeared elsewhere first, add imported: true",
      );
    }
    // Not committed yet: its first commit will be today or later, and refuse this date then.
    const uncommitted = first === undefined && history.kind !== "none";
    if (uncommitted && published < earliestToday(now) && fields.imported !== true) {
      throw new ContentError(
        `${file}: published (${published}) is before today, and the file is not committed yet: ` +
          "its first commit will be today or later, and the build refuses a date before it. " +
          "Use today's date, or remove published to take it from git; " +
          "if the piece appeared elsewhere first, add imported: true",
      );
    }
  } else if (fields.imported === true) {
    throw new ContentError(`${file}: imported: true needs the published date it first appeared`);
  } else if (known) {
    published = first;
  } else if (history.kind === "none") {
    throw new ContentError(
      `${file}: no published date, and no git history to read it from: add published: YYYY-MM-DD`,
    );
  } else if (first !== undefined) {
    throw new ContentError(
      `${file}: no published date, and this shallow clone does not reach the file's first commit: ` +
        "add published: YYYY-MM-DD, or fetch the whole history (git fetch --unshallow)",
    );
  } else {
    // Not committed yet: it appears on the site with this build.
    published = day(now);
  }
  const { updated } = fields;
  if (updated !== undefined && updated > future) {
    throw new ContentError(`${file}: updated (${updated}) is in the future`);
  }
  if (updated !== undefined && updated < published) {
    throw new ContentError(`${file}: updated (${updated}) is before published (${published})`);
  }
  return { published, updated };
}
