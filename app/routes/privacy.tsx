import { PageHeader } from "../components/page-header.tsx";
import { pageMeta } from "../lib/meta.ts";

const title = "Privacy Policy";
const description =
  "What this site stores about you, why, and for how long.";

export const meta = () => pageMeta({ title, description, path: "/privacy" });

export default function Page() {
  return <PageHeader title={title}>{description}</PageHeader>;
}
