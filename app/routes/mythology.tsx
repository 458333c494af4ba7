import { useLoaderData } from "react-router";
import { siteContent } from "../../content/load.ts";
import { PageHeader } from "../components/page-header.tsx";
import { EngageableItems } from "../features/engagement/engageable-items.tsx";
import { pageMeta } from "../lib/meta.ts";

export function loader() {
  return { stories: siteContent().stories };
}

const title = "Mythological Inspirations";
const description =
  "Stories from the Ramayana and the Mahabharata, retold with the lessons they hold for students, engineers and professionals today.";

export const meta = () => pageMeta({ title, description, path: "/mythology" });

const groups = [
  { id: "ramayana", name: "From the Ramayana" },
  { id: "mahabharata", name: "From the Mahabharata" },
] as const;

export default function Mythology() {
  const { stories } = useLoaderData<typeof loader>();
  return (
    <>
      <PageHeader title={title}>{description}</PageHeader>
      <EngageableItems
        kind="mythology"
        imageHeight="h-[300px]"
        groups={groups.map((group) => ({
          ...group,
          items: stories.filter((item) => item.epic === group.id),
        }))}
      />
    </>
  );
}
