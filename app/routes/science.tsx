import { PageHeader } from "../components/page-header.tsx";
import { pageMeta } from "../lib/meta.ts";

const title = "Science in Everyday";
const description =
  "Everyday questions answered with engineering and physics: Wi-Fi, ironing, cooling tea, swinging cricket balls, pressure cookers, GPS, soap and two inventions.";

export const meta = () => pageMeta({ title, description, path: "/science" });

export default function Page() {
  return <PageHeader title={title}>{description}</PageHeader>;
}
