import { lazy, Suspense } from "react";
import type { ItemKind } from "../../contract/limits.ts";

// Reactions, comments, the name prompt and their data layer load when a reader
// opens an item, not with the page: they stay out of the first-load JavaScript.
const EngagementPanel = lazy(() => import("./engagement-panel.tsx"));

type ItemEngagementProps = {
  kind: ItemKind;
  itemId: string;
  title: string;
  open: boolean;
  commentsHeading?: "h3" | "h4";
};

/** Mounted only while its item is open, so closing the item ends its live stream. */
export function ItemEngagement({ open, ...item }: ItemEngagementProps) {
  if (!open) return null;
  return (
    <Suspense fallback={<p className="mt-6 text-sm text-slate-400">Loading reactions…</p>}>
      <EngagementPanel {...item} />
    </Suspense>
  );
}
