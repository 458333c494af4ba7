import { useState } from "react";
import { useLoaderData } from "react-router";
import { siteContent } from "../../content/load.ts";
import { PageHeader } from "../components/page-header.tsx";
import { CollapsibleCard } from "../components/ui/collapsible-card.tsx";
import { ExternalLink } from "../components/ui/external-link.tsx";
import { Prose } from "../components/ui/prose.tsx";
import { Tabs } from "../components/ui/tabs.tsx";
import { pageMeta } from "../lib/meta.ts";
import { useAccordion } from "../lib/use-accordion.ts";

export function loader() {
  const { growth, softSkills } = siteContent();
  return { growth, softSkills, softSkillIds: softSkills.map((skill) => skill.id) };
}

const title = "Non Technical";
const description =
  "Professional growth and the ten soft skills that shape an engineer's career: career planning, workplace harmony, communication, teamwork and more.";

export const meta = () => pageMeta({ title, description, path: "/non-technical" });

export default function NonTechnical() {
  const { growth, softSkills, softSkillIds } = useLoaderData<typeof loader>();
  const [tab, setTab] = useState("professional-growth");
  // A link to a soft skill (/non-technical#time-management) shows its tab and opens it.
  const skills = useAccordion(softSkillIds, () => setTab("soft-skills"));

  return (
    <>
      <PageHeader title={title}>{description}</PageHeader>
      <Tabs
        label="Non-technical topics"
        value={tab}
        onValueChange={setTab}
        tabs={[
          {
            id: "professional-growth",
            label: "Professional Growth",
            content: (
              <div className="grid gap-5 md:grid-cols-3">
                {growth.map((item) => (
                  <article
                    key={item.id}
                    id={item.id}
                    className="flex flex-col rounded-2xl border border-line bg-panel p-5"
                  >
                    <h2 className="text-lg font-semibold text-slate-100">{item.title}</h2>
                    <p className="mt-2 text-sm text-slate-400">{item.summary}</p>
                    <Prose html={item.html} className="mt-4 flex-1 text-sm" />
                    <ExternalLink href={item.link.url} className="mt-5 text-sm">
                      {item.link.label}
                    </ExternalLink>
                  </article>
                ))}
              </div>
            ),
          },
          {
            id: "soft-skills",
            label: "Soft Skills",
            content: (
              <div className="space-y-4">
                {softSkills.map((skill) => (
                  <CollapsibleCard
                    key={skill.id}
                    id={skill.id}
                    title={skill.title}
                    open={skills.isOpen(skill.id)}
                    onToggle={() => skills.toggle(skill.id)}
                  >
                    <Prose html={skill.html} />
                  </CollapsibleCard>
                ))}
              </div>
            ),
          },
        ]}
      />
    </>
  );
}
