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
