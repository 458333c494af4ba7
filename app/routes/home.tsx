import { PageHeader } from "../components/page-header.tsx";
import { pageMeta } from "../lib/meta.ts";

const title = "Engage with Engineer";
const description =
  "Mechanical engineering, electric and fuel-cell vehicles, AI chatbots and voicebots, everyday science and mythology-inspired motivation, explained by a practising engineer.";

export const meta = () => pageMeta({ title, description, path: "/" });

export default function Page() {
  return <PageHeader title={title}>{description}</PageHeader>;
}
