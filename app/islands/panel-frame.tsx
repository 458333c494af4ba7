import type { ComponentProps, ReactNode } from "react";
import { ReactionButtons } from "../components/reaction-buttons.tsx";

/** The engagement panel's box, and the row of its reaction buttons (engagement-panel.tsx). */
export const panelClasses = "mt-6 space-y-5 border-t border-line pt-5";
export const reactionRowClasses = "flex flex-wrap items-center justify-between gap-3";

/**
 * The panel's place while it loads, drawn by the server too: its reaction
 * buttons, disabled, and on an item's own page the server's copy of the
 * comments, so the live panel takes exactly this space and nothing under it
 * moves. Without JavaScript the buttons are not drawn (`noscript:hidden`).
 */
export function PanelPlaceholder({ title, children }: { title: string; children?: ReactNode }) {
  return (
    <div className={children ? panelClasses : `noscript:hidden ${panelClasses}`}>
      <div className={`noscript:hidden ${reactionRowClasses}`}>
        <ReactionGroup title={title} counts={null} onReact={() => {}} disabled />
      </div>
      {children}
    </div>
  );
}

/**
 * The item's reaction buttons, a group named after it: one markup for the
 * placeholder and the live panel, so that the one takes the other's space.
 */
export function ReactionGroup({
  title,
  disabled = false,
  ...buttons
}: { title: string } & ComponentProps<typeof ReactionButtons>) {
  return (
    <fieldset disabled={disabled}>
      <legend className="sr-only">Reactions to {title}</legend>
      <ReactionButtons {...buttons} disabled={disabled} />
    </fieldset>
  );
}
