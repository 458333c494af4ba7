import { feedFormats, feedName, feedPath } from "../lib/feed-paths.ts";
import { Icon } from "./ui/icon.tsx";

/**
 * The feeds as visible links (every page's head announces them too, for
 * readers that look there): the whole site's, or one section's.
 */
export function FeedLinks({
  section,
  className = "",
}: {
  section?: { id: string; name: string };
  className?: string;
}) {
  const scope = section ? `New in ${section.name}, by feed:` : "Every new piece, by feed:";
  return (
    <p
      className={`flex flex-wrap items-center gap-x-3 gap-y-1 text-sm text-slate-400 ${className}`}
    >
      <Icon name="rss" className="size-4 text-accent" />
      <span>{scope}</span>
      {feedFormats.map((format) => (
        <a
          key={format.id}
          href={feedPath(format, section?.id)}
          type={format.type}
          className="text-accent underline-offset-2 hover:underline"
        >
          {format.label}
          {/* Distinct names beside the footer's site-wide links of the same labels. */}
          {section ? (
            <span className="sr-only">
              {feedName(format, section.name).slice(format.label.length)}
            </span>
          ) : null}
        </a>
      ))}
    </p>
  );
}
