import { useLoaderData } from "react-router";
import { siteContent } from "../../content/load.ts";
import { PageHeader } from "../components/page-header.tsx";
import { CollapsibleCard } from "../components/ui/collapsible-card.tsx";
import { ContentImage } from "../components/ui/content-image.tsx";
import { Prose } from "../components/ui/prose.tsx";
import { ItemEngagement } from "../features/engagement/item-engagement.tsx";
import { pageMeta } from "../lib/meta.ts";
import { useAccordion } from "../lib/use-accordion.ts";

export function loader() {
  const { science } = siteContent();
  return { items: science, ids: science.map((item) => item.id) };
}

const title = "Science in Everyday";
const description =
  "Everyday questions answered with engineering and physics: Wi-Fi, ironing, cooling tea, swinging cricket balls, pressure cookers, GPS, soap and two inventions.";

export const meta = () => pageMeta({ title, description, path: "/science" });

const groups = [
  { kind: "question", name: "Questions and answers" },
  { kind: "invention", name: "Inventions" },
] as const;

export default function Science() {
  const { items, ids } = useLoaderData<typeof loader>();
  const accordion = useAccordion(ids);
  return (
    <>
      <PageHeader title={title}>{description}</PageHeader>
      {groups.map((group) => (
        <section key={group.kind} aria-labelledby={`${group.kind}-heading`} className="mb-12">
          <h2 id={`${group.kind}-heading`} className="mb-5 text-2xl font-semibold text-accent">
            {group.name}
          </h2>
          <div className="space-y-4">
            {items
              .filter((item) => item.kind === group.kind)
              .map((item) => {
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
                    <div className="-mx-5 -mt-5 mb-5 h-[400px] overflow-hidden bg-ink">
                      <ContentImage image={item.image} className="h-full w-full object-contain" />
                    </div>
                    <Prose html={item.html} />
                    <ItemEngagement
                      kind="science"
                      itemId={item.id}
                      title={item.title}
                      open={open}
                    />
                  </CollapsibleCard>
                );
              })}
          </div>
        </section>
      ))}
    </>
  );
}
