import { Accordion } from "radix-ui";
import { type ReactNode, useEffect, useRef, useState } from "react";
import { linkedId, useEnhanced } from "../../lib/use-enhanced.ts";
import { Icon } from "./icon.tsx";

export type Card = {
  id: string;
  title: string;
  /** Shown under the title whether the card is open or not. */
  summary?: string;
  /** A line under the summary, also always shown (the item's engagement, from the server). */
  meta?: ReactNode;
  leading?: ReactNode;
  body: ReactNode;
};

type CardListProps = {
  cards: Card[];
  /** "single": opening one closes the others; "multiple": each opens on its own. */
  type: "single" | "multiple";
  /** Names the native group that keeps one card open at a time without JavaScript. */
  group: string;
  headingLevel?: 2 | 3;
  /**
   * More of a card's body, after `body`, as it is while `open` (reactions,
   * comments); `open` is null in the HTML, before the list is live.
   */
  extra?: (card: Card, open: boolean | null) => ReactNode;
  /** Groups of cards with a heading above each; a flat list when absent. */
  sections?: { id: string; name: string; cardIds: string[] }[];
};

/**
 * Collapsible cards. In the HTML each card is a native <details>: it opens and
 * closes without JavaScript, one at a time through the shared `name`, and a
 * link to its id (/science#soap) opens it. Once hydrated, the list becomes a
 * Radix accordion whose triggers are buttons with aria-expanded, starting from
 * whatever the reader had already opened.
 */
export function CardList({ cards, type, group, headingLevel = 2, extra, sections }: CardListProps) {
  const root = useRef<HTMLDivElement>(null);
  const ids = cards.map((card) => card.id);
  const start = useEnhanced(root, (element) => {
    const opened = [...element.querySelectorAll<HTMLDetailsElement>("details[open]")].map(
      (details) => details.dataset.card ?? "",
    );
    const linked = linkedId(ids);
    const focused = document.activeElement?.closest<HTMLElement>("[data-card]")?.dataset.card;
    return {
      open: linked && !opened.includes(linked) ? [...opened, linked] : opened,
      linked,
      focused: focused ?? null,
    };
  });
  const [open, setOpen] = useState<string[]>([]);

  // Take over what the markup showed, then keep focus and the linked card in view.
  useEffect(() => {
    if (!start) return;
    setOpen(type === "single" ? start.open.slice(-1) : start.open);
    const focusTarget = start.focused;
    const scrollTarget = start.linked;
    requestAnimationFrame(() => {
      if (focusTarget) triggerOf(focusTarget)?.focus();
      if (scrollTarget) document.getElementById(scrollTarget)?.scrollIntoView({ block: "start" });
    });
  }, [start, type]);

  // A link to a card within the page (#soap) opens it.
  useEffect(() => {
    const onHash = () => {
      const linked = linkedId(ids);
      if (!linked) return;
      setOpen((current) => (type === "single" ? [linked] : [...new Set([...current, linked])]));
      requestAnimationFrame(() => document.getElementById(linked)?.scrollIntoView());
    };
    window.addEventListener("hashchange", onHash);
    return () => window.removeEventListener("hashchange", onHash);
  });

  const byId = new Map(cards.map((card) => [card.id, card]));
  const layout = sections ?? [{ id: "", name: "", cardIds: ids }];
  const Heading = headingLevel === 2 ? "h2" : "h3";

  const renderSection = (renderCard: (card: Card) => ReactNode) =>
    layout.map((section) => {
      const list = section.cardIds.flatMap((id) => byId.get(id) ?? []).map(renderCard);
      if (!section.name)
        return (
          <div key="all" className="space-y-4">
            {list}
          </div>
        );
      const headingId = `${section.id}-heading`;
      return (
        <section key={section.id} aria-labelledby={headingId} className="mb-12">
          <h2 id={headingId} className="mb-5 text-2xl font-semibold text-accent">
            {section.name}
          </h2>
          <div className="space-y-4">{list}</div>
        </section>
      );
    });

  if (!start) {
    return (
      <div ref={root}>
        {renderSection((card) => (
          <details
            key={card.id}
            data-card={card.id}
            name={type === "single" ? group : undefined}
            className="card"
            // The reader may open it before hydration; that is the point.
            suppressHydrationWarning
          >
            <summary className="card-summary">
              {card.leading}
              <Heading className="card-title">{card.title}</Heading>
              <Icon name="chevron-down" className="card-chevron" />
              {card.summary ? <span className="card-subtitle">{card.summary}</span> : null}
              {card.meta ? <span className="card-meta">{card.meta}</span> : null}
            </summary>
            <div className="card-body">
              {/* The link target sits at the card's top, inside the body: a
                  fragment link then opens the <details> natively. */}
              <span id={card.id} className="card-anchor" />
              {card.body}
              {extra?.(card, null)}
            </div>
          </details>
        ))}
      </div>
    );
  }

  const item = (card: Card) => {
    const isOpen = open.includes(card.id);
    return (
      <Accordion.Item
        key={card.id}
        value={card.id}
        id={card.id}
        data-card={card.id}
        className="card"
        data-open={isOpen}
      >
        <Accordion.Header asChild>
          <Heading className="card-title">
            <Accordion.Trigger data-trigger className="card-trigger">
              {card.leading}
              <span className="flex-1">{card.title}</span>
              <Icon name="chevron-down" className="card-chevron" />
            </Accordion.Trigger>
          </Heading>
        </Accordion.Header>
        {card.summary ? <div className="card-subtitle">{card.summary}</div> : null}
        {card.meta ? <div className="card-meta">{card.meta}</div> : null}
        <Accordion.Content forceMount hidden={!isOpen} className="card-body">
          {card.body}
          {extra?.(card, isOpen)}
        </Accordion.Content>
      </Accordion.Item>
    );
  };

  return (
    <div ref={root}>
      {type === "single" ? (
        <Accordion.Root
          type="single"
          collapsible
          value={open[0] ?? ""}
          onValueChange={(value) => setOpen(value ? [value] : [])}
        >
          {renderSection(item)}
        </Accordion.Root>
      ) : (
        <Accordion.Root type="multiple" value={open} onValueChange={setOpen}>
          {renderSection(item)}
        </Accordion.Root>
      )}
    </div>
  );
}

function triggerOf(id: string) {
  return document.querySelector<HTMLElement>(`[data-card="${CSS.escape(id)}"] [data-trigger]`);
}
