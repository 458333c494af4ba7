import { PageHeader } from "../components/page-header.tsx";
import { pageMeta } from "../lib/meta.ts";

const title = "Technical";
const description =
  "Articles on internal combustion engines, high-pressure fuel injection, emissions control, electric vehicles and fuel cells.";

export const meta = () => pageMeta({ title, description, path: "/technical" });

export default function Page() {
  return <PageHeader title={title}>{description}</PageHeader>;
}
