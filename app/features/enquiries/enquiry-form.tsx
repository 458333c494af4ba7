import { type FormEvent, useEffect, useId, useRef, useState } from "react";
import {
  acknowledgementsAtMost,
  answerWithin,
  isServiceChoice,
  otherService,
} from "../../../contract/enquiry-choices.ts";
import { limits } from "../../../contract/limits.ts";
import {
  ContactFields,
  FormField,
  focusFirstProblem,
  type ServiceChoice,
} from "../../components/ui/form-field.tsx";
import { api, formRefusal } from "../../lib/api-client.ts";
import { onDraft, takeDraft } from "../../lib/enquiry-draft.ts";
import { useFormGuard } from "../../lib/form-guard.tsx";

type Fields = {
  name: string;
  email: string;
  service: string;
  organisation: string;
  timeline: string;
  message: string;
};
type FieldName = keyof Fields;
type Status = "idle" | "sending" | "sent";

const empty: Fields = {
  name: "",
  email: "",
  service: "",
  organisation: "",
  timeline: "",
  message: "",
};

/** The fields a sender may leave empty, and what each one's input carries besides. */
const optionalFields = [
  { name: "organisation", label: "Organisation", extra: { autoComplete: "organization" } },
  { name: "timeline", label: "Timeline", extra: { placeholder: "e.g. a first draft by June" } },
] as const;

/** The service named by `?service=`, where a card's link leaves the address once hydrated. */
function serviceFromAddress(services: ServiceChoice[]): string | null {
  const wanted = new URLSearchParams(window.location.search).get("service");
  return wanted !== null && isServiceChoice(services, wanted) ? wanted : null;
}

/**
 * The enquiry form on /services and on each service's page for asking about
 * it (docs/product.md, "Enquiries"). In the HTML
 * it is an ordinary form that posts to the server, which shows the enquiry
 * back and then leads to a thank-you page; once hydrated it sends in place
 * and says "Thank you" where the form was. The spam defences are the comment
 * form's: a hidden field people never fill, and the form's signed time,
 * fetched when the reader first touches the form.
 */
export function EnquiryForm({
  services,
  chosen = "",
  privacyHref,
  retentionDays,
}: {
  services: ServiceChoice[];
  /** The service chosen in the HTML (a service's page for asking about it). */
  chosen?: string;
  privacyHref: string;
  retentionDays: number;
}) {
  const [fields, setFields] = useState<Fields>({ ...empty, service: chosen });
  const [status, setStatus] = useState<Status>("idle");
  const [problem, setProblem] = useState<string | null>(null);
  const [problems, setProblems] = useState<Partial<Record<FieldName, string>>>({});
  const [sentTo, setSentTo] = useState<{
    name: string;
    email: string;
    service: string;
  } | null>(null);
  const form = useRef<HTMLFormElement>(null);
  const thanks = useRef<HTMLDivElement>(null);
  const alert = useRef<HTMLParagraphElement>(null);
  const guard = useFormGuard("GET /enquiries/form-token");
  const id = useId();

  /** The question the assistant last handed over, which a newer one replaces. */
  const drafted = useRef("");
  // What the reader typed before hydration stays; a card's link chooses the service.
  useEffect(() => {
    const element = form.current;
    if (!element) return;
    const data = new FormData(element);
    const typed = Object.fromEntries(
      (Object.keys(empty) as FieldName[]).map((name) => [name, String(data.get(name) ?? "")]),
    ) as Fields;
    const chosen = serviceFromAddress(services);
    // The assistant's "Send an enquiry" hands the reader's question over in the browser.
    const asked = takeDraft().slice(0, limits.enquiryMessageMax);
    drafted.current = asked;
    setFields({
      ...typed,
      service: chosen ?? typed.service,
      message: typed.message || asked,
    });
  }, [services]);

  // Pressed again once the form is live on the same page: the new question, unless the reader wrote their own.
  useEffect(
    () =>
      onDraft((asked) => {
        const message = asked.slice(0, limits.enquiryMessageMax);
        const before = drafted.current;
        drafted.current = message;
        setFields((current) =>
          current.message === "" || current.message === before ? { ...current, message } : current,
        );
        setStatus((current) => (current === "sent" ? "idle" : current));
      }),
    [],
  );

  /** "Send another enquiry" was pressed: it is gone, and the form's first field takes the focus. */
  const again = useRef(false);
  useEffect(() => {
    if (status === "sent") thanks.current?.focus();
    if (status !== "idle" || !again.current) return;
    again.current = false;
    form.current?.querySelector<HTMLElement>('[name="name"]')?.focus();
  }, [status]);

  // The button, disabled while sending, dropped the focus: a refusal hands it on.
  useEffect(() => {
    if (problem) focusFirstProblem(form.current, alert.current);
  }, [problem]);

  // Once hydrated, a card's "Ask about this service" chooses it in place, without a reload.
  useEffect(() => {
    function ask(event: MouseEvent) {
      const link = (event.target as Element | null)?.closest?.("a[data-ask-service]");
      const wanted = link?.getAttribute("data-ask-service");
      if (!link || !wanted || event.button !== 0 || event.metaKey || event.ctrlKey) return;
      if (!services.some((service) => service.id === wanted)) return;
      event.preventDefault();
      setFields((current) => ({ ...current, service: wanted }));
      setStatus((current) => (current === "sent" ? "idle" : current));
      // The address names the choice on this page; the link's own page is for readers without scripts.
      window.history.replaceState(null, "", `/services?service=${wanted}#send-enquiry`);
      const select = form.current?.querySelector("select");
      select?.scrollIntoView({
        block: "center",
        behavior: window.matchMedia("(prefers-reduced-motion: reduce)").matches ? "auto" : "smooth",
      });
      select?.focus({ preventScroll: true });
    }
    document.addEventListener("click", ask);
    return () => document.removeEventListener("click", ask);
  }, [services]);

  const change = (name: FieldName) => (value: string) => {
    setFields((current) => ({ ...current, [name]: value }));
    setProblems((current) => ({ ...current, [name]: undefined }));
  };

  async function send(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (status === "sending") return;
    setStatus("sending");
    setProblem(null);
    setProblems({});
    try {
      // The browser's time zone, so the acknowledgement gives the time as the reader's clock reads it.
      const zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
      await guard.sent((guarded) =>
        api("POST /enquiries", { body: { ...fields, ...guarded, zone } }),
      );
      setSentTo({ name: fields.name.trim(), email: fields.email.trim(), service: fields.service });
      setFields({ ...empty, service: chosen });
      setStatus("sent");
    } catch (error) {
      const refusal = formRefusal(
        error,
        Object.keys(empty) as FieldName[],
        "The enquiry could not be sent: the site did not answer. Check your connection and send it again.",
      );
      setProblems(refusal.problems);
      setProblem(refusal.problem);
      setStatus("idle");
    }
  }

  if (status === "sent" && sentTo) {
    const bookHref =
      sentTo.service && sentTo.service !== otherService
        ? `/book?service=${encodeURIComponent(sentTo.service)}`
        : "/book";
    return (
      <div
        ref={thanks}
        tabIndex={-1}
        role="status"
        // The name and address as typed: a long address has no place to break but anywhere.
        className="rounded-xl border border-accent/40 bg-accent/10 px-5 py-4 text-slate-100 outline-none [overflow-wrap:anywhere]"
      >
        <p className="text-lg font-semibold">Thank you, {sentTo.name}!</p>
        <p className="mt-2 text-slate-300">
          Your enquiry has arrived, and you will have an answer at {sentTo.email} within{" "}
          {answerWithin}. An acknowledgement goes there too (at most {acknowledgementsAtMost}).
        </p>
        <p className="mt-2 text-slate-300">
          Would a conversation be quicker?{" "}
          <a href={bookHref} className="font-semibold text-accent underline">
            Book a call
          </a>{" "}
          at a time that suits you.
        </p>
        <button
          type="button"
          className="mt-4 text-sm font-semibold text-accent underline"
          onClick={() => {
            again.current = true;
            setSentTo(null);
            setStatus("idle");
          }}
        >
          Send another enquiry
        </button>
      </div>
    );
  }

  const look = {
    label: "block text-sm font-medium text-slate-200",
    control: "field mt-1 w-full",
    problem: "mt-1 text-sm text-red-300",
  };
  const messageLength = fields.message.trim().length;

  return (
    <form
      ref={form}
      action="/services/enquiry"
      method="post"
      className="grid gap-4 sm:grid-cols-2"
      onSubmit={send}
      onFocus={guard.start}
    >
      {guard.honeypot}
      {problem ? (
        <p
          ref={alert}
          tabIndex={-1}
          role="alert"
          className="rounded-lg outline-none border border-red-400/40 bg-red-950/40 px-4 py-3 text-sm text-red-100 sm:col-span-2"
        >
          {problem}
        </p>
      ) : null}
      <ContactFields
        id={id}
        values={fields}
        problems={problems}
        change={change}
        services={services}
        look={look}
        boxes={{ name: "", email: "", service: "sm:col-span-2" }}
      />
      {optionalFields.map(({ name, label, extra }) => (
        <FormField
          key={name}
          id={`${id}-${name}`}
          label={
            <>
              {`${label} `}
              <span className="font-normal text-slate-400">(optional)</span>
            </>
          }
          problem={problems[name]}
          look={look}
          box=""
        >
          {(control) => (
            <input
              {...control}
              name={name}
              type="text"
              maxLength={limits.enquiryDetailMax}
              {...extra}
              className={look.control}
              value={fields[name]}
              onChange={(event) => change(name)(event.target.value)}
            />
          )}
        </FormField>
      ))}
      <FormField
        id={`${id}-message`}
        label="Message"
        problem={problems.message}
        hint={`${id}-message-hint`}
        look={look}
        box="sm:col-span-2"
      >
        {(control) => (
          <>
            <textarea
              {...control}
              name="message"
              required
              rows={7}
              minLength={limits.enquiryMessageMin}
              maxLength={limits.enquiryMessageMax}
              className={look.control}
              value={fields.message}
              onChange={(event) => change("message")(event.target.value)}
            />
            <p id={`${id}-message-hint`} className="mt-1 text-xs text-slate-400">
              What you need and for what: {limits.enquiryMessageMin} to{" "}
              {limits.enquiryMessageMax.toLocaleString("en")} characters
              {messageLength > 0 ? ` (${messageLength.toLocaleString("en")} so far)` : ""}. Links
              and a phone number are welcome.
            </p>
          </>
        )}
      </FormField>
      <p className="text-sm text-slate-400 sm:col-span-2">
        What you send is used only to answer you: it is mailed to the engineer, deleted after{" "}
        {retentionDays} days unless it becomes a project, and never shown on the site. The{" "}
        <a href={privacyHref} className="text-accent underline">
          privacy policy
        </a>{" "}
        says more, and the acknowledgement mail carries a link that deletes it.
      </p>
      <div className="sm:col-span-2">
        <button type="submit" className="btn-primary" disabled={status === "sending"}>
          {status === "sending" ? "Sending…" : "Send enquiry"}
        </button>
      </div>
    </form>
  );
}
