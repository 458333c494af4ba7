import type { Image } from "../../../content/schema.ts";
import type { ItemKind } from "../../../contract/limits.ts";
import { CollapsibleCard } from "../../components/ui/collapsible-card.tsx";
import { ContentImage } from "../../components/ui/content-image.tsx";
import { Prose } from "../../components/ui/prose.tsx";
import { useAccordion } from "../../lib/use-accordion.ts";
import { ItemEngagement } from "./item-engagement.tsx";

type Item = { id: string; title: string; summary: string; image: Image; html: string };

type EngageableItemsProps = {
  kind: ItemKind;
  groups: { id: string; name: string; items: Item[] }[];
  /** The image area's height class, e.g. "h-[300px]" (written out so Tailwind sees it). */
  imageHeight: string;
};

/**
 * Stories and science posts: titled groups of cards, one open at a time, each
 * with its image, text, and live reactions (and comments) while open.
 */
export function EngageableItems({ kind, groups, imageHeight }: EngageableItemsProps) {
  const accordion = useAccordion(groups.flatMap((group) => group.items.map((item) => item.id)));
  return groups.map((group) => (
    <section key={group.id} aria-labelledby={`${group.id}-heading`} className="mb-12">
      <h2 id={`${group.id}-heading`} className="mb-5 text-2xl font-semibold text-accent">
        {group.name}
      </h2>
      <div className="space-y-4">
        {group.items.map((item) => {
          const open = accordion.isOpen(item.id);
          return (
            <CollapsibleCard
              key={item.id}
              id={item.id}
              title={item.title}
              summary={item.summary}
              headingLevel={3}
              open={open}
              onToggle={() => accordion.toggle(item.id)}
            >
              <div className={`-mx-5 -mt-5 mb-5 overflow-hidden bg-ink ${imageHeight}`}>
                <ContentImage image={item.image} className="h-full w-full object-contain" />
              </div>
              <Prose html={item.html} />
              <ItemEngagement kind={kind} itemId={item.id} title={item.title} open={open} />
            </CollapsibleCard>
          );
        })}
      </div>
    </section>
  ));
}
