import { useState } from "react";
import { useLoaderData } from "react-router";
import { siteContent } from "../../content/load.ts";
import type { ReactionType } from "../../contract/limits.ts";
import { PageHeader } from "../components/page-header.tsx";
import { CollapsibleCard } from "../components/ui/collapsible-card.tsx";
import { ExternalLink } from "../components/ui/external-link.tsx";
import { Prose } from "../components/ui/prose.tsx";
import { Tabs } from "../components/ui/tabs.tsx";
import { Toast, useTimedMessage } from "../components/ui/toast.tsx";
import { ReactionButtons } from "../features/reactions/reaction-buttons.tsx";
import { fireConfetti } from "../lib/confetti.ts";
import { pageMeta } from "../lib/meta.ts";

export function loader() {
  return siteContent().technical;
}

const title = "Technical";
const description =
  "Articles on internal combustion engines, high-pressure fuel injection, emissions control, electric vehicles and fuel cells.";

export const meta = () => pageMeta({ title, description, path: "/technical" });

export default function Technical() {
  const { tabs, articles } = useLoaderData<typeof loader>();
  // Technical articles open and close independently of each other (SPEC §4).
  const [open, setOpen] = useState<ReadonlySet<string>>(new Set());
  const [toast, showToast] = useTimedMessage(2000);

  const toggle = (id: string) =>
    setOpen((current) => {
      const next = new Set(current);
      if (!next.delete(id)) next.add(id);
      return next;
    });

  // Static reactions: a thank-you for like and love, nothing is stored (SPEC §2).
  const react = (type: ReactionType) => {
    if (type !== "like" && type !== "love") return;
    void fireConfetti();
    showToast("Thank you for your reaction!");
  };

  return (
    <>
      <PageHeader title={title}>{description}</PageHeader>
      <Tabs
        label="Technical topics"
        tabs={tabs.map((tab) => ({
          id: tab.id,
          label: tab.label,
          content: (
            <div className="space-y-5">
              <Prose html={tab.html} />
              {articles
                .filter((article) => article.tab === tab.id)
                .map((article) => (
                  <CollapsibleCard
                    key={article.id}
                    id={article.id}
                    title={article.title}
                    summary={article.summary}
                    open={open.has(article.id)}
                    onToggle={() => toggle(article.id)}
                  >
                    <Prose html={article.html} />
                    {article.staticReactions ? (
                      <div className="mt-6 border-t border-line pt-4">
                        <ReactionButtons counts={article.staticReactions} onReact={react} />
                      </div>
                    ) : null}
                  </CollapsibleCard>
                ))}
              {tab.links.length > 0 ? (
                <ul className="space-y-2">
                  {tab.links.map((link) => (
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
      <Toast message={toast} />
    </>
  );
}
