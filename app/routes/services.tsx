import { useLoaderData } from "react-router";
import { siteContent } from "../../content/load.ts";
import { PageHeader } from "../components/page-header.tsx";
import { Icon } from "../components/ui/icon.tsx";
import { ChatbotEmbed } from "../features/chatbot/chatbot-embed.tsx";
import { pageMeta } from "../lib/meta.ts";
import { siteConfig } from "../lib/site-config.ts";

export function loader() {
  return { services: siteContent().services };
}

const title = "Services";
const description =
  "Consulting, design and training: mechanical design, IC engine, EV and fuel-cell projects, DFMEA, tolerance stack-ups, chatbots, voicebots, VBA tools and training.";

export const meta = () => pageMeta({ title, description, path: "/services" });

export default function Services() {
  const { services } = useLoaderData<typeof loader>();
  return (
    <>
      <PageHeader title={title}>{description}</PageHeader>
      <ul className="grid gap-5 md:grid-cols-2 xl:grid-cols-3">
        {services.map((service) => (
          <li
            key={service.id}
            id={service.id}
            className="flex flex-col rounded-2xl border border-line bg-panel p-6"
          >
            <span className="grid size-12 place-items-center rounded-xl bg-accent/10 text-accent">
              <Icon name={service.icon} className="size-6" />
            </span>
            <h2 className="mt-4 text-lg font-semibold text-slate-100">{service.title}</h2>
            <p className="mt-2 text-sm leading-relaxed text-slate-300">{service.description}</p>
            <ul className="mt-4 space-y-1.5 text-sm text-slate-400">
              {service.features.map((feature) => (
                <li key={feature} className="flex gap-2">
                  <span aria-hidden="true" className="text-accent">
                    ✓
                  </span>
                  {feature}
                </li>
              ))}
            </ul>
          </li>
        ))}
      </ul>

      <section
        aria-labelledby="contact-heading"
        className="mt-12 rounded-2xl border border-line bg-panel p-6"
      >
        <h2 id="contact-heading" className="text-xl font-semibold text-slate-100">
          Let's talk about your project
        </h2>
        <p className="mt-2 text-slate-300">
          Tell me what you are building and where you are stuck; I reply to every message.
        </p>
        <a
          href={`mailto:${siteConfig.contactEmail}`}
          className="mt-4 inline-flex items-center gap-2 font-semibold text-accent hover:underline"
        >
          <Icon name="mail" className="size-5" />
          {siteConfig.contactEmail}
        </a>
      </section>

      <section aria-labelledby="chat-heading" className="mt-12">
        <h2 id="chat-heading" className="mb-4 text-2xl font-semibold text-slate-100">
          Chat with Me
        </h2>
        <ChatbotEmbed />
      </section>
    </>
  );
}
