import { PageHeader } from "../components/page-header.tsx";
import { pageMeta } from "../lib/meta.ts";

const title = "Services";
const description =
  "Consulting, design and training: mechanical design, IC engine, EV and fuel-cell projects, DFMEA, tolerance stack-ups, chatbots, voicebots, VBA tools and training.";

export const meta = () => pageMeta({ title, description, path: "/services" });

export default function Page() {
  return <PageHeader title={title}>{description}</PageHeader>;
}
