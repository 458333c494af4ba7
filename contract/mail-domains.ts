/*
 * "Did you mean name@gmail.com?" beside a form's email field (docs/product.md, "A mistyped
 * mail domain"): the newsletter's, the enquiry's and the booking's, in the browser and in
 * the server's answer pages alike. Only a suggestion: the address typed is never refused.
 */

/** The mail domains most readers' addresses are at: a domain a letter or two from one is likely a slip. */
const common = [
  "gmail.com",
  "googlemail.com",
  "yahoo.com",
  "yahoo.co.in",
  "yahoo.co.uk",
  "ymail.com",
  "hotmail.com",
  "hotmail.co.uk",
  "outlook.com",
  "live.com",
  "msn.com",
  "icloud.com",
  "me.com",
  "mac.com",
  "aol.com",
  "proton.me",
  "protonmail.com",
  "rediffmail.com",
  "zoho.com",
  "gmx.com",
  "gmx.de",
  "gmx.net",
  "web.de",
  "mail.com",
  "yandex.com",
  "fastmail.com",
  "comcast.net",
];
const known = new Set(common);

/** Edits from `a` to `b` (a letter added, dropped, changed, or two beside each other swapped), up to `most` + 1. */
function distance(a: string, b: string, most: number): number {
  if (Math.abs(a.length - b.length) > most) return most + 1;
  let before: number[] = [];
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      const change = a[i - 1] === b[j - 1] ? 0 : 1;
      let cost = Math.min(
        (previous[j] ?? 0) + 1,
        (row[j - 1] ?? 0) + 1,
        (previous[j - 1] ?? 0) + change,
      );
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        cost = Math.min(cost, (before[j - 2] ?? 0) + 1);
      row.push(cost);
    }
    before = previous;
    previous = row;
  }
  return previous[b.length] ?? most + 1;
}

/**
 * The address with a common domain in place of one a slip away from it (`name@gmial.com`:
 * `name@gmail.com`), or null: for a known domain, one too far from any, or no address.
 */
export function suggestedAddress(email: string): string | null {
  const at = email.lastIndexOf("@");
  const domain = email
    .slice(at + 1)
    .trim()
    .toLowerCase();
  if (at < 1 || domain === "" || known.has(domain)) return null;
  // A short domain is a real one of its own more often: one slip allowed there, two beyond.
  const most = domain.length < 8 ? 1 : 2;
  let best: { domain: string; edits: number } | null = null;
  for (const candidate of common) {
    const edits = distance(domain, candidate, most);
    if (edits <= most && (best === null || edits < best.edits)) best = { domain: candidate, edits };
  }
  return best ? `${email.slice(0, at).trim()}@${best.domain}` : null;
}
