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
  const { stories } = siteContent();
  return { stories, ids: stories.map((story) => story.id) };
}

const title = "Mythological Inspirations";
const description =
  "Stories from the Ramayana and the Mahabharata, retold with the lessons they hold for students, engineers and professionals today.";

export const meta = () => pageMeta({ title, description, path: "/mythology" });

const epics = [
  { id: "ramayana", name: "From the Ramayana" },
  { id: "mahabharata", name: "From the Mahabharata" },
] as const;

export default function Mythology() {
  const { stories, ids } = useLoaderData<typeof loader>();
  const accordion = useAccordion(ids);
  return (
    <>
      <PageHeader title={title}>{description}</PageHeader>
      {epics.map((epic) => (
        <section key={epic.id} aria-labelledby={`${epic.id}-heading`} className="mb-12">
          <h2 id={`${epic.id}-heading`} className="mb-5 text-2xl font-semibold text-accent">
            {epic.name}
          </h2>
          <div className="space-y-4">
            {stories
              .filter((story) => story.epic === epic.id)
              .map((story) => {
                const open = accordion.isOpen(story.id);
                return (
                  <CollapsibleCard
                    key={story.id}
                    id={story.id}
                    title={story.title}
                    summary={story.summary}
                    headingLevel={3}
                    open={open}
                    onToggle={() => accordion.toggle(story.id)}
                  >
                    <div className="-mx-5 -mt-5 mb-5 h-[300px] overflow-hidden bg-ink">
                      <ContentImage image={story.image} className="h-full w-full object-contain" />
                    </div>
                    <Prose html={story.html} />
                    <ItemEngagement
                      kind="mythology"
                      itemId={story.id}
                      title={story.title}
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
