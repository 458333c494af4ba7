import { PageHeader } from "../components/page-header.tsx";
import { pageMeta } from "../lib/meta.ts";
import { siteConfig } from "../lib/site-config.ts";

const title = "Privacy Policy";
const description = "What this site stores about you, why, and how to have it removed.";

export const meta = () => pageMeta({ title, description, path: "/privacy" });

export default function Privacy() {
  return (
    <>
      <PageHeader title={title}>{description}</PageHeader>
      <div className="prose-content max-w-3xl">
        <p>
          This is a plain-language summary of how the site handles data today. A formal policy will
          replace it before any paid service is sold through the site.
        </p>
        <h2>What is stored</h2>
        <ul>
          <li>
            <strong>Newsletter:</strong> the email address you subscribe with, and when you
            subscribed. Every mailing carries a link that removes it.
          </li>
          <li>
            <strong>Reactions and comments:</strong> the display name you choose, what you wrote or
            reacted, and when. Comments and names are public.
          </li>
          <li>
            <strong>An anonymous visitor cookie:</strong> a random number, set when you first react
            or comment, so that only you can edit or delete what you wrote. It holds nothing about
            you.
          </li>
          <li>
            <strong>Your display name</strong> is also remembered in your own browser so you need
            not type it again.
          </li>
        </ul>
        <h2>What is not</h2>
        <p>
          No advertising, no analytics or tracking scripts, no selling or sharing of data. Server
          logs keep technical request data for operating the site and never contain email addresses.
        </p>
        <h2>The chat assistant</h2>
        <p>
          The chat on the Services page is provided by a third-party chatbot service and is loaded
          only on that page. What you type there is sent to that provider.
        </p>
        <h2>Removal</h2>
        <p>
          To have your comments, reactions or subscription removed, write to{" "}
          <a href={`mailto:${siteConfig.contactEmail}`}>{siteConfig.contactEmail}</a>.
        </p>
      </div>
    </>
  );
}
