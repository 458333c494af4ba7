import { PageHeader } from "../components/page-header.tsx";
import { pageMeta } from "../lib/meta.ts";

const title = "Mythological Inspirations";
const description =
  "Stories from the Ramayana and the Mahabharata, retold with the lessons they hold for students, engineers and professionals today.";

export const meta = () => pageMeta({ title, description, path: "/mythology" });

export default function Page() {
  return <PageHeader title={title}>{description}</PageHeader>;
}
