import type { PublicConfig } from "../../contract/site-config.ts";

declare const __SITE_CONFIG__: PublicConfig;

/** Public settings baked in at build time from the environment (contract/site-config.ts). */
export const siteConfig: PublicConfig = __SITE_CONFIG__;

export { siteName } from "./site-name.ts";
