const formatter = new Intl.DateTimeFormat("en-US", {
  month: "short",
  day: "numeric",
  year: "numeric",
  hour: "numeric",
  minute: "2-digit",
});

/** "Nov 22, 2026, 3:04 PM", in the reader's own time zone (docs/product.md, "Constants"). */
export function formatCommentTime(iso: string): string {
  return formatter.format(new Date(iso));
}

const dayFormatter = new Intl.DateTimeFormat("en-US", {
  month: "short",
  day: "numeric",
  year: "numeric",
  timeZone: "UTC",
});

/** "2026-03-14" → "Mar 14, 2026": a calendar day, the same in every time zone. */
export function formatDay(day: string): string {
  return dayFormatter.format(new Date(`${day}T00:00:00Z`));
}
