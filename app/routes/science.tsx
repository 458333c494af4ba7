import { useLoaderData } from "react-router";
import { siteContent } from "../../content/load.ts";
import { PageHeader } from "../components/page-header.tsx";
import { EngageableItems } from "../features/engagement/engageable-items.tsx";
import { pageMeta } from "../lib/meta.ts";

export function loader() {
  return { items: siteContent().science };
}

const title = "Science in Everyday";
const description =
  "Everyday questions answered with engineering and physics: Wi-Fi, ironing, cooling tea, swinging cricket balls, pressure cookers, GPS, soap and two inventions.";

export const meta = () => pageMeta({ title, description, path: "/science" });

const groups = [
  { id: "question", name: "Questions and answers" },
  { id: "invention", name: "Inventions" },
] as const;

export default function Science() {
  const { items } = useLoaderData<typeof loader>();
  return (
    <>
      <PageHeader title={title}>{description}</PageHeader>
      <EngageableItems
        kind="science"
        imageHeight="h-[400px]"
        groups={groups.map((group) => ({
          ...group,
          items: items.filter((item) => item.kind === group.id),
        }))}
      />
    </>
  );
}
