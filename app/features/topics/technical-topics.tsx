import { type ReactNode, useState } from "react";
import { Toaster, toast } from "sonner";
import type { ReactionType } from "../../../contract/limits.ts";
import { ReactionButtons, type ReactionCounts } from "../../components/reaction-buttons.tsx";
import { type Card, CardList } from "../../components/ui/card-list.tsx";
import { ExternalLink } from "../../components/ui/external-link.tsx";
import { Tabs } from "../../components/ui/tabs.tsx";
import { fireConfetti } from "../../lib/confetti.ts";
import { useTabOfLinkedItem } from "../../lib/use-enhanced.ts";

type Link = { label: string; url: string };
type Article = {
  id: string;
  title: string;
  summary: string;
  tab: string;
  staticReactions: ReactionCounts | null;
};

/** Build-time HTML: each tab's introduction as `tab<index>`, each article's text as `item<index>`. */
type Bodies = { [slot: `tab${number}` | `item${number}`]: ReactNode };

type TechnicalTopicsProps = Bodies & {
  tabs: { id: string; label: string; links: Link[] }[];
  articles: Article[];
};

const thanksMs = 2000;

/**
 * The Technical page's tabs (an island). Articles open and close on their own
 * (docs/product.md, "Cards, tabs and accordions"). Three carry fixed reaction
 * counts that are never saved: like and love thank the reader with confetti
 * and a 2 s toast.
 */
export function TechnicalTopics({ tabs, articles, ...slots }: TechnicalTopicsProps) {
  const bodies = slots as Bodies;
  const [tab, setTab] = useState(tabs[0]?.id ?? "");
  useTabOfLinkedItem(
    Object.fromEntries(articles.map((article) => [article.id, article.tab])),
    setTab,
  );

  const react = (type: ReactionType) => {
    if (type !== "like" && type !== "love") return;
    void fireConfetti();
    toast("Thank you for your reaction!", { duration: thanksMs });
  };

  const cardsOf = (tabId: string): Card[] =>
    articles.flatMap((article, index) =>
      article.tab !== tabId
        ? []
        : [
            {
              id: article.id,
              title: article.title,
              summary: article.summary,
              body: (
                <>
                  {bodies[`item${index}`]}
                  {article.staticReactions ? (
                    <div className="mt-6 border-t border-line pt-4">
                      <ReactionButtons counts={article.staticReactions} onReact={react} />
                    </div>
                  ) : null}
                </>
              ),
            },
          ],
    );

  return (
    <>
      <Tabs
        label="Technical topics"
        value={tab}
        onValueChange={setTab}
        tabs={tabs.map((topic, index) => ({
          id: topic.id,
          label: topic.label,
          content: (
            <div className="space-y-5">
              {bodies[`tab${index}`]}
              <CardList cards={cardsOf(topic.id)} type="multiple" group={topic.id} />
              {topic.links.length > 0 ? (
                <ul className="space-y-2">
                  {topic.links.map((link) => (
                    <li key={link.url}>
                      <ExternalLink href={link.url}>{link.label}</ExternalLink>
                    </li>
                  ))}
                </ul>
              ) : null}
            </div>
          ),
        }))}
      />
      <Toaster position="bottom-center" theme="dark" />
    </>
  );
}
