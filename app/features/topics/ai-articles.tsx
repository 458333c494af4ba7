import type { ReactNode } from "react";
import type { IconName } from "../../../content/schema.ts";
import { CardList } from "../../components/ui/card-list.tsx";
import { Icon } from "../../components/ui/icon.tsx";

type AiArticlesProps = { [slot: `item${number}`]: ReactNode } & {
  articles: { id: string; title: string; summary: string; icon: IconName }[];
};

/** MechFusionAI's articles (an island): one open at a time. */
export function AiArticles({ articles, ...bodies }: AiArticlesProps) {
  return (
    <CardList
      type="single"
      group="mechfusion-ai"
      cards={articles.map((article, index) => ({
        id: article.id,
        title: article.title,
        summary: article.summary,
        leading: (
          <span className="grid size-10 shrink-0 place-items-center rounded-xl bg-accent/10 text-accent">
            <Icon name={article.icon} />
          </span>
        ),
        body: (bodies as Record<string, ReactNode>)[`item${index}`],
      }))}
    />
  );
}
