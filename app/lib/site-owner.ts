import type { Owner } from "../../content/owner.ts";

declare const __SITE_OWNER__: Owner;

/**
 * The owner as the pages show them (content/owner.md, SITE_OWNER_NAME), baked
 * in at build time. Only pages read it, so no island carries the profile.
 */
export const siteOwner: Owner = __SITE_OWNER__;

/** The year the site was built (its pages are prerendered): the footer's and the sidebar's "©". */
export const builtYear = new Date().getUTCFullYear();
