import { lazy, type ReactNode, Suspense } from "react";
import type { ItemKind } from "../../contract/limits.ts";
import { PanelPlaceholder } from "./panel-frame.tsx";

// Reactions, comments, the name prompt and their data layer load when a reader
// opens an item, not with the page: they stay out of the first-load JavaScript.
const EngagementPanel = lazy(() => import("./engagement-panel.tsx"));

type ItemEngagementProps = {
  kind: ItemKind;
  itemId: string;
  title: string;
  open: boolean;
  commentsHeading?: "h3" | "h4";
  /** Whether the panel's place is drawn while it is closed, as the server renders it. */
  keepPlace?: boolean;
  /** The server's copy of the comments, in the panel's place until the live ones arrive. */
  children?: ReactNode;
};

/**
 * The panel, mounted only while its item is open, so closing the item ends
 * its live stream. While it loads, its place is drawn, with `children` in it.
 */
export function ItemEngagement({
  open,
  keepPlace = false,
  children,
  ...item
}: ItemEngagementProps) {
  const placeholder = (
    <PanelPlaceholder kind={item.kind} title={item.title}>
      {children}
    </PanelPlaceholder>
  );
  if (!open) return keepPlace ? placeholder : null;
  return (
    <Suspense fallback={placeholder}>
      <EngagementPanel {...item}>{children}</EngagementPanel>
    </Suspense>
  );
}
