import { PageHeader } from "../components/page-header.tsx";
import { pageMeta } from "../lib/meta.ts";

const title = "About Me";
const description =
  "The career of a mechanical engineer: engine and fuel-injection design, emissions, electric and fuel-cell vehicles, reliability methods, automation tools, chatbots and training.";

export const meta = () => pageMeta({ title, description, path: "/about" });

export default function Page() {
  return <PageHeader title={title}>{description}</PageHeader>;
}
