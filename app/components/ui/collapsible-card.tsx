import type { ReactNode } from "react";
import { Icon } from "./icon.tsx";

type CollapsibleCardProps = {
  id: string;
  title: ReactNode;
  /** Shown under the title whether open or not. */
  summary?: ReactNode;
  open: boolean;
  onToggle: () => void;
  headingLevel?: 2 | 3;
  leading?: ReactNode;
  children: ReactNode;
};

/**
 * A card whose title is a disclosure button. The body is always rendered and only
 * hidden when closed, so search engines and the browser's find see all the text.
 * `id` is the anchor for deep links (/science#soap).
 */
export function CollapsibleCard({
  id,
  title,
  summary,
  open,
  onToggle,
  headingLevel = 2,
  leading,
  children,
}: CollapsibleCardProps) {
  const Heading = headingLevel === 2 ? "h2" : "h3";
  const panelId = `${id}-panel`;
  return (
    <article
      id={id}
      className={`rounded-2xl border bg-panel transition-colors ${
        open ? "border-accent/50" : "border-line"
      }`}
    >
      <Heading className="text-lg font-semibold text-slate-100">
        <button
          type="button"
          aria-expanded={open}
          aria-controls={panelId}
          onClick={onToggle}
          className="flex w-full items-center gap-4 rounded-2xl p-5 text-left"
        >
          {leading}
          <span className="flex-1">{title}</span>
          <Icon
            name="chevron-down"
            className={`size-5 shrink-0 text-slate-400 transition-transform ${open ? "rotate-180" : ""}`}
          />
        </button>
      </Heading>
      {summary ? <div className="-mt-2 px-5 pb-4 text-sm text-slate-400">{summary}</div> : null}
      <div id={panelId} hidden={!open} className="border-t border-line px-5 py-5">
        {children}
      </div>
    </article>
  );
}
