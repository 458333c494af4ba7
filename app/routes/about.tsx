import { useLoaderData } from "react-router";
import { siteContent } from "../../content/load.ts";
import { PageHeader } from "../components/page-header.tsx";
import { Prose } from "../components/ui/prose.tsx";
import { pageMeta } from "../lib/meta.ts";
import { siteConfig } from "../lib/site-config.ts";

export function loader() {
  const { about } = siteContent();
  return { about };
}

export const meta = ({ loaderData }: { loaderData: ReturnType<typeof loader> }) =>
  pageMeta({
    title: loaderData.about.title,
    description: loaderData.about.description,
    path: "/about",
  });

export default function About() {
  const { about } = useLoaderData<typeof loader>();
  return (
    <>
      <PageHeader title={about.title}>
        {siteConfig.ownerName ? <p>{siteConfig.ownerName}</p> : null}
      </PageHeader>
      <Prose html={about.html} className="max-w-3xl text-[1.05rem]" />
    </>
  );
}
