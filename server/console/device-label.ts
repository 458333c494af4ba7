import Bowser from "bowser";

/** The longest User-Agent header read: real ones are a few hundred characters. */
const maxUserAgent = 512;

/**
 * A console session's browser and device in words, such as "Firefox on Linux"
 * or "Safari on iOS (phone)", from the User-Agent it signed in with, so the
 * owner can tell sessions apart. Only this label is stored, not the header.
 */
export function deviceLabel(userAgent: string | undefined): string {
  const header = (userAgent ?? "").slice(0, maxUserAgent).trim();
  if (!header) return "Unknown browser";
  const { browser, os, platform } = Bowser.parse(header);
  const name = browser.name?.trim() || "Unknown browser";
  const system = os.name?.trim();
  const kind =
    platform.type === "mobile" ? " (phone)" : platform.type === "tablet" ? " (tablet)" : "";
  return `${name}${system ? ` on ${system}` : ""}${kind}`.slice(0, 80);
}
