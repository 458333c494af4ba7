import type { ReactNode } from "react";
import type { ItemKind } from "../../contract/limits.ts";
import { useHydrated } from "../lib/use-enhanced.ts";
import { ItemEngagement } from "./item-engagement.tsx";

type ItemDiscussionProps = {
  kind: ItemKind;
  itemId: string;
  title: string;
  /** The comments as the server wrote them into the page, shown until the live ones arrive. */
  children?: ReactNode;
};

/**
 * The reactions (and a science post's comments) on an item's own page (an
 * island): the same panel, live stream and data as its card on the list page,
 * always open. Until the live comments arrive, the server's copy stands in,
 * in the place the panel keeps from the first paint.
 */
export function ItemDiscussion({ kind, itemId, title, children }: ItemDiscussionProps) {
  // The panel loads in the browser only; the prerendered HTML keeps the server's copy.
  const live = useHydrated();
  return (
    <section aria-labelledby="discussion-heading" className="item-discussion">
      <h2 id="discussion-heading" className="text-xl font-semibold text-slate-100">
        {kind === "science" ? "Reactions and comments" : "Reactions"}
      </h2>
      {/* Without JavaScript the buttons and the comment box are not drawn: say why, rather than leave a heading over nothing. */}
      <p className="mt-3 hidden text-sm text-slate-400 noscript:block" data-pagefind-ignore>
        {kind === "science" ? "Reacting and commenting need" : "Reacting needs"} JavaScript, which
        is off in this browser.
      </p>
      <ItemEngagement
        kind={kind}
        itemId={itemId}
        title={title}
        open={live}
        commentsHeading="h3"
        keepPlace
      >
        {children}
      </ItemEngagement>
    </section>
  );
}
