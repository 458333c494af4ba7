import { useLoaderData } from "react-router";
import { siteContent } from "../../content/load.ts";
import { PageHeader } from "../components/page-header.tsx";
import { CollapsibleCard } from "../components/ui/collapsible-card.tsx";
import { ContentImage } from "../components/ui/content-image.tsx";
import { ExternalLink } from "../components/ui/external-link.tsx";
import { Icon } from "../components/ui/icon.tsx";
import { Prose } from "../components/ui/prose.tsx";
import { pageMeta } from "../lib/meta.ts";
import { useAccordion } from "../lib/use-accordion.ts";

export function loader() {
  const { ai } = siteContent();
  return { ...ai, ids: ai.articles.map((article) => article.id) };
}

export const meta = ({ loaderData }: { loaderData: ReturnType<typeof loader> }) =>
  pageMeta({
    title: loaderData.intro.title,
    description: loaderData.intro.description,
    path: "/mechfusion-ai",
  });

export default function MechFusionAi() {
  const { intro, articles, ids } = useLoaderData<typeof loader>();
  const accordion = useAccordion(ids);
  return (
    <>
      <PageHeader title={intro.title} />
      <section className="grid items-center gap-8 lg:grid-cols-2">
        <Prose html={intro.html} className="text-[1.05rem]" />
        <ContentImage
          image={intro.image}
          eager
          className="h-auto w-full rounded-2xl border border-line"
        />
      </section>

      <section
        aria-labelledby="ai-panel-heading"
        className="my-12 rounded-2xl border border-accent/30 bg-accent/5 p-6"
      >
        <h2 id="ai-panel-heading" className="text-xl font-semibold text-slate-100">
          {intro.panelTitle}
        </h2>
        <ul className="mt-4 grid gap-3 sm:grid-cols-2">
          {intro.panelPoints.map((point) => (
            <li key={point} className="flex gap-3 text-slate-300">
              <span aria-hidden="true" className="mt-2 size-2 shrink-0 rounded-full bg-accent" />
              <span>{point}</span>
            </li>
          ))}
        </ul>
      </section>

      <div className="space-y-4">
        {articles.map((article) => (
          <CollapsibleCard
            key={article.id}
            id={article.id}
            title={article.title}
            summary={article.summary}
            open={accordion.isOpen(article.id)}
            onToggle={() => accordion.toggle(article.id)}
            leading={
              <span className="grid size-10 shrink-0 place-items-center rounded-xl bg-accent/10 text-accent">
                <Icon name={article.icon} />
              </span>
            }
          >
            <Prose html={article.html} />
            <ExternalLink href={article.link} className="mt-6">
              Read More on LinkedIn
            </ExternalLink>
          </CollapsibleCard>
        ))}
      </div>
    </>
  );
}
