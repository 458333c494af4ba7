import type { ReactNode } from "react";
import type { ItemKind } from "../../contract/limits.ts";
import { type Card, CardList } from "../components/ui/card-list.tsx";
import { ItemEngagement } from "./item-engagement.tsx";

type EngageableItem = { id: string; title: string; summary: string };

/**
 * Each item's image and text arrive as the slot `item<index>`, rendered at
 * build time, its engagement line as `meta<index>` and a science post's
 * comments as `comments<index>`, which the server fills in when it serves the
 * page (server/web/engagement-pages.ts).
 */
type Bodies = { [slot: `${"item" | "meta" | "comments"}${number}`]: ReactNode };

type EngageableItemsProps = Bodies & {
  kind: ItemKind;
  items: EngageableItem[];
  groups: { id: string; name: string; itemIds: string[] }[];
};

/**
 * Stories and science posts (an island): titled groups of cards, one open at
 * a time, the open one with its live reactions (and comments).
 */
export function EngageableItems({ kind, items, groups, ...bodies }: EngageableItemsProps) {
  const slot = (name: "item" | "meta" | "comments", index: number) =>
    (bodies as Bodies)[`${name}${index}`];
  const cards: Card[] = items.map((item, index) => ({
    ...item,
    body: slot("item", index),
    meta: slot("meta", index),
  }));
  return (
    <CardList
      cards={cards}
      type="single"
      group={kind}
      headingLevel={3}
      sections={groups.map((group) => ({ id: group.id, name: group.name, cardIds: group.itemIds }))}
      // The panel's place, in the HTML and while it loads, as on the item's own
      // page (item-discussion.tsx): the served comments in it until the live
      // ones arrive. A closed card of the live list holds nothing.
      extra={(card, open) => (
        <ItemEngagement
          kind={kind}
          itemId={card.id}
          title={card.title}
          open={open === true}
          keepPlace={open === null}
        >
          {slot("comments", cards.indexOf(card))}
        </ItemEngagement>
      )}
    />
  );
}
