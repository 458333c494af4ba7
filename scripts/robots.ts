/**
 * robots.txt: every page may be crawled but the API and the owner's console
 * (docs/decisions/012-owner-console.md). No `Allow: /` line: crawlers that take
 * the first matching rule (rather than the longest) would read it as
 * "everything allowed" and never reach the lines after it. What no rule
 * matches is allowed anyway.
 */
export function robotsTxt(siteUrl: string): string {
  return `User-agent: *\nDisallow: /api/\nDisallow: /admin\n\nSitemap: ${siteUrl}/sitemap.xml\n`;
}
