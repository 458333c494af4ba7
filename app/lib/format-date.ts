// Each formatter is made on first use: the first one made loads the
// locale's data, about 20 ms that the server's start would otherwise spend
// before it listens, and most requests format no date.
let commentTime: Intl.DateTimeFormat | undefined;
let calendarDay: Intl.DateTimeFormat | undefined;

/**
 * "Nov 22, 2026, 3:04 PM", in the reader's own time zone (docs/product.md, "Constants").
 * The server, which draws the comments into the page as served and cannot know
 * that zone, writes UTC and says so ("3:04 PM UTC"): a reader without
 * JavaScript reads a time that is true, and the live island writes the reader's own.
 */
export function formatCommentTime(iso: string): string {
  commentTime ??= new Intl.DateTimeFormat("en-US", {
    month: "short",
    day: "numeric",
    year: "numeric",
    hour: "numeric",
    minute: "2-digit",
    ...(typeof window === "undefined" ? { timeZone: "UTC", timeZoneName: "short" } : {}),
  });
  return commentTime.format(new Date(iso));
}

/** "2026-03-14" → "Mar 14, 2026": a calendar day, the same in every time zone. */
export function formatDay(day: string): string {
  calendarDay ??= new Intl.DateTimeFormat("en-US", {
    month: "short",
    day: "numeric",
    year: "numeric",
    timeZone: "UTC",
  });
  return calendarDay.format(new Date(`${day}T00:00:00Z`));
}
