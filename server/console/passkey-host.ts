import { isIP } from "node:net";

/**
 * Why passkeys cannot work on this site, or null when they can. A passkey
 * belongs to a host name (WebAuthn's relying party id), and browsers refuse an
 * IP address as one ("127.0.0.1 is an invalid domain"), so a site whose
 * SITE_URL is an address must be opened by a name, such as localhost.
 */
export function passkeyProblem(siteUrl: string): string | null {
  const { hostname, port, protocol } = new URL(siteUrl);
  if (isIP(hostname.replace(/^\[|\]$/g, "")) === 0) return null;
  const example = `${protocol}//localhost${port ? `:${port}` : ""}`;
  return `Passkeys need a host name, and this site's address (SITE_URL ${siteUrl}) is an IP address, which browsers refuse for passkeys. Set SITE_URL to a name, such as ${example} or your domain, and open the console there. Sign-in links work meanwhile.`;
}
