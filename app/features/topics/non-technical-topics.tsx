import { type ReactNode, useState } from "react";
import { CardList } from "../../components/ui/card-list.tsx";
import { ExternalLink } from "../../components/ui/external-link.tsx";
import { Tabs } from "../../components/ui/tabs.tsx";
import { useTabOfLinkedItem } from "../../lib/use-enhanced.ts";

type Growth = { id: string; title: string; summary: string; link: { label: string; url: string } };

/** Build-time HTML: growth write-ups as `growth<index>`, soft skills as `item<index>`. */
type Bodies = { [slot: `growth${number}` | `item${number}`]: ReactNode };

type NonTechnicalTopicsProps = Bodies & {
  growth: Growth[];
  skills: { id: string; title: string }[];
};

const growthTab = "professional-growth";
const skillsTab = "soft-skills";

/**
 * Professional Growth (the default tab) and Soft Skills, an accordion with one
 * topic open at a time. A link to a topic (/non-technical#time-management)
 * shows its tab and opens it.
 */
export function NonTechnicalTopics({ growth, skills, ...slots }: NonTechnicalTopicsProps) {
  const bodies = slots as Bodies;
  const [tab, setTab] = useState(growthTab);
  useTabOfLinkedItem(Object.fromEntries(skills.map((skill) => [skill.id, skillsTab])), setTab);

  return (
    <Tabs
      label="Non-technical topics"
      value={tab}
      onValueChange={setTab}
      tabs={[
        {
          id: growthTab,
          label: "Professional Growth",
          content: (
            <div className="grid gap-5 md:grid-cols-3">
              {growth.map((item, index) => (
                <article
                  key={item.id}
                  id={item.id}
                  className="flex flex-col rounded-2xl border border-line bg-panel p-5"
                >
                  <h2 className="text-lg font-semibold text-slate-100">{item.title}</h2>
                  <p className="mt-2 text-sm text-slate-400">{item.summary}</p>
                  <div className="mt-4 flex-1 text-sm">{bodies[`growth${index}`]}</div>
                  <ExternalLink href={item.link.url} className="mt-5 text-sm">
                    {item.link.label}
                  </ExternalLink>
                </article>
              ))}
            </div>
          ),
        },
        {
          id: skillsTab,
          label: "Soft Skills",
          content: (
            <CardList
              cards={skills.map((skill, index) => ({ ...skill, body: bodies[`item${index}`] }))}
              type="single"
              group={skillsTab}
            />
          ),
        },
      ]}
    />
  );
}
