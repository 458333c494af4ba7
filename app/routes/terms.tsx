import { PageHeader } from "../components/page-header.tsx";
import { pageMeta } from "../lib/meta.ts";

const title = "Terms of Service";
const description =
  "The terms for reading, reacting to and commenting on this site.";

export const meta = () => pageMeta({ title, description, path: "/terms" });

export default function Page() {
  return <PageHeader title={title}>{description}</PageHeader>;
}
