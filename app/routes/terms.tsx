import { PageHeader } from "../components/page-header.tsx";
import { pageMeta } from "../lib/meta.ts";
import { siteConfig } from "../lib/site-config.ts";

const title = "Terms of Service";
const description = "The terms for reading, reacting to and commenting on this site.";

export const meta = () => pageMeta({ title, description, path: "/terms" });

export default function Terms() {
  return (
    <>
      <PageHeader title={title}>{description}</PageHeader>
      <div className="prose-content max-w-3xl">
        <p>
          These short terms cover the free parts of the site. Consulting, design and training work
          is agreed separately, in writing, for each engagement.
        </p>
        <h2>Reading</h2>
        <p>
          The articles and stories are written to teach and to inspire. They are not a substitute
          for engineering judgement on a specific product, and no warranty is given for their use in
          one.
        </p>
        <h2>Comments and reactions</h2>
        <ul>
          <li>Be respectful; disagree with ideas, not people.</li>
          <li>No spam, advertising, abuse or personal data of others.</li>
          <li>Comments that break these rules may be removed without notice.</li>
          <li>You keep the rights to what you write and allow the site to show it.</li>
        </ul>
        <h2>Contact</h2>
        <p>
          Questions about these terms:{" "}
          <a href={`mailto:${siteConfig.contactEmail}`}>{siteConfig.contactEmail}</a>.
        </p>
      </div>
    </>
  );
}
