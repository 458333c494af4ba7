import type { ReactNode } from "react";
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
        <fieldset disabled>
          <legend className="sr-only">Reactions to {title}</legend>
          <ReactionButtons counts={null} onReact={() => {}} disabled />
        </fieldset>
      </div>
      {children}
    </div>
  );
}
