import type { ComponentProps, ReactNode } from "react";
import type { ItemKind } from "../../contract/limits.ts";
import { ReactionButtons } from "../components/reaction-buttons.tsx";

/** The engagement panel's box, and the row of its reaction buttons (engagement-panel.tsx). */
export const panelClasses = "mt-6 space-y-5 border-t border-line pt-5";
export const reactionRowClasses = "flex flex-wrap items-center justify-between gap-3";

/**
 * The panel's place while it loads, drawn by the server too: its reaction
 * buttons, disabled, the name line a reader with a stored name will see, and
 * the server's copy of a science post's comments, so the live panel takes
 * exactly this space and nothing under it moves. Without JavaScript the
 * buttons are not drawn (`noscript:hidden`).
 */
export function PanelPlaceholder({
  kind,
  title,
  children,
}: {
  kind: ItemKind;
  title: string;
  children?: ReactNode;
}) {
  return (
    <div className={children ? panelClasses : `noscript:hidden ${panelClasses}`}>
      <div className={`noscript:hidden ${reactionRowClasses}`}>
        <ReactionGroup title={title} counts={null} onReact={() => {}} disabled />
        <NameLine kind={kind} name={null} />
      </div>
      {children}
    </div>
  );
}

/**
 * "Commenting as Asha", and its "Change name" button. In the placeholder
 * (`name` null) it is shown only when the page's first script found a stored
 * name (`html[data-named]`, app/layouts/page.astro), which CSS then writes in
 * (`--named`), or, on a science post, the signed-in owner's (`data-owner`,
 * `--owner`, without the button): the line wraps as the live one will. Inert,
 * and out of the search index, until it is live.
 */
export function NameLine({
  kind,
  name,
  onChange,
}: {
  kind: ItemKind;
  name: string | null;
  /** Absent for the signed-in owner, whose name no prompt changes. */
  onChange?: (() => void) | undefined;
}) {
  const waiting = name === null;
  return (
    // A 40-character name without a space still wraps (docs/product.md, "Limits").
    <p
      className={`${waiting ? `waiting-name ${kind === "science" ? "waiting-commenter " : ""}` : ""}min-w-0 text-sm text-slate-400 [overflow-wrap:anywhere]`}
      inert={waiting}
      data-pagefind-ignore={waiting ? "all" : undefined}
    >
      {kind === "science" ? "Commenting" : "Reacting"} as{" "}
      <span className="font-semibold text-slate-200">{name}</span>{" "}
      {waiting || onChange ? (
        <button
          type="button"
          onClick={onChange}
          disabled={waiting}
          className="text-accent underline underline-offset-2"
        >
          Change name
        </button>
      ) : null}
    </p>
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
