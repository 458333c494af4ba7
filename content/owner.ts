import { existsSync } from "node:fs";
import path from "node:path";
import { ContentError, defaultContentRoot, readFrontmatter, validate } from "./frontmatter.ts";
import { type Image, type Link, ownerSchema } from "./schema.ts";

/*
 * The owner: who writes the site and can be hired (content/owner.md). The
 * server reads only this file (the name for mails and the reserved comment
 * name); the build reads it with the rest of the content.
 */

export type OwnerProfile = ReturnType<typeof ownerSchema.parse>;

/** The profile as written, validated; a problem throws a ContentError naming the file. */
export function readOwnerProfile(root: string = defaultContentRoot): OwnerProfile {
  const profile = validate(ownerSchema, readFrontmatter(root, "owner.md").data, "owner.md");
  if (profile.photo && !existsSync(path.join(root, "images", profile.photo.src))) {
    throw new ContentError(`owner.md: image "${profile.photo.src}" is not in content/images/`);
  }
  return profile;
}

/** What the pages, feeds and mails show of the owner. */
export type Owner = {
  name: string;
  /** The details below come from a real profile; null while it is the sample under a real name. */
  role: string | null;
  location: string | null;
  practisingSince: number | null;
  education: string[];
  areas: string[];
  photo: Image | null;
  links: Link[];
  /** The LinkedIn profile: a link of the profile, or OWNER_LINKEDIN_URL. */
  linkedIn: string | null;
  /** The repository's sample profile, shown as it is (a first run, or tests). */
  sample: boolean;
};

/** "Since 2005, 21 years": the years of practice, counted on the day of the build. */
export function yearsOfPractice(owner: Owner, today = new Date()): number | null {
  return owner.practisingSince === null ? null : today.getUTCFullYear() - owner.practisingSince;
}

type OwnerSettings = {
  SITE_OWNER_NAME?: string | undefined;
  OWNER_LINKEDIN_URL?: string | undefined;
};

/**
 * SITE_OWNER_NAME and OWNER_LINKEDIN_URL, when set, win over the profile. A
 * sample profile under another name shows only that name: its role, place and
 * links describe somebody else.
 */
export function resolveOwner(profile: OwnerProfile, settings: OwnerSettings): Owner {
  // The sample under its own name is still the sample.
  const hidden =
    profile.sample &&
    settings.SITE_OWNER_NAME !== undefined &&
    settings.SITE_OWNER_NAME !== profile.name;
  const linkedIn =
    settings.OWNER_LINKEDIN_URL ??
    (hidden
      ? undefined
      : profile.links.find((link) => /linkedin\.com$/.test(new URL(link.url).hostname))?.url);
  return {
    name: settings.SITE_OWNER_NAME ?? profile.name,
    role: hidden ? null : profile.role,
    location: hidden ? null : profile.location,
    practisingSince: hidden ? null : profile.practisingSince,
    education: hidden ? [] : profile.education,
    areas: hidden ? [] : profile.areas,
    photo: hidden ? null : (profile.photo ?? null),
    links: hidden ? [] : profile.links,
    linkedIn: linkedIn ?? null,
    sample: profile.sample && !hidden,
  };
}
