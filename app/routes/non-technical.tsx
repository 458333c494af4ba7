import { PageHeader } from "../components/page-header.tsx";
import { pageMeta } from "../lib/meta.ts";

const title = "Non Technical";
const description =
  "Professional growth and the ten soft skills that shape an engineer's career: career planning, workplace harmony, communication, teamwork and more.";

export const meta = () => pageMeta({ title, description, path: "/non-technical" });

export default function Page() {
  return <PageHeader title={title}>{description}</PageHeader>;
}
