import { PageHeader } from "../components/page-header.tsx";
import { pageMeta } from "../lib/meta.ts";

const title = "MechFusionAI";
const description =
  "Where artificial intelligence meets mechanical engineering: physics-informed models, AI and creativity, and generative AI for engineers.";

export const meta = () => pageMeta({ title, description, path: "/mechfusion-ai" });

export default function Page() {
  return <PageHeader title={title}>{description}</PageHeader>;
}
