import { otherService, otherServiceLabel } from "../../contract/enquiry-choices.ts";
import { escapeHtml } from "../../contract/html.ts";
import { limits } from "../../contract/limits.ts";
import { suggestedAddress } from "../../contract/mail-domains.ts";
import { hidden } from "./action-page.ts";

/**
 * A reader's form as the server writes it, without JavaScript (the booking form, the
 * enquiry form after a refusal): what the reader typed back in its fields, escaped, and
 * what the server refused in a field beside it, as the islands' FormField has it.
 */

/** Class names the fields are drawn with: the page's own. */
export type FieldLook = { label: string; control: string; problem: string };

/** Each field's problem, by the field's name. */
export type FieldProblems<F extends string> = Partial<Record<F, string>>;

/** The problems of the fields of `order`, the first for each, from `[field, message]` pairs. */
export function fieldProblems<F extends string>(
  order: readonly F[],
  pairs: [unknown, string][],
): FieldProblems<F> {
  const problems: FieldProblems<F> = {};
  for (const [field, problem] of pairs) {
    const known = order.find((each) => each === field);
    if (known) problems[known] ??= problem;
  }
  return problems;
}

/**
 * The fields of one form: `id` prefixes their ids, `order` is theirs in the form. A refused
 * field is invalid, described by its message written under it, and the first refused one is
 * focused when the page loads, its name, state and message read together.
 */
export function formFieldsHtml<F extends string>({
  id,
  order,
  filled,
  problems,
  look,
}: {
  id: string;
  order: readonly F[];
  filled: Partial<Record<F, string>>;
  problems: FieldProblems<F>;
  look: FieldLook;
}) {
  const first = order.find((field) => problems[field]);
  const value = (name: F) => escapeHtml(filled[name] ?? "");
  /** A field's label (trusted HTML), its control (`control` gets its attributes) and its problem. */
  const field = (
    name: F,
    label: string,
    control: (attributes: string) => string,
    hint?: string,
  ) => {
    const problem = problems[name];
    const described = [problem ? `${id}-${name}-problem` : "", hint ?? ""].filter(Boolean);
    const marks = `${problem ? ' aria-invalid="true"' : ""}${described.length ? ` aria-describedby="${described.join(" ")}"` : ""}${first === name ? " autofocus" : ""}`;
    return `<label for="${id}-${name}" class="${look.label}">${label}</label>
${control(`id="${id}-${name}" name="${name}" class="${look.control}"${marks}`)}${problem ? `\n<p id="${id}-${name}-problem" class="${look.problem}">${escapeHtml(problem)}</p>` : ""}`;
  };
  return {
    field,
    /** A one-line text field, `more` its other attributes. */
    text: (name: F, label: string, more: string) =>
      field(name, label, (marks) => `<input ${marks} type="text"${more} value="${value(name)}">`),
    /** A text area, `more` its other attributes. */
    area: (name: F, label: string, more: string, hint?: string) =>
      field(name, label, (marks) => `<textarea ${marks}${more}>${value(name)}</textarea>`, hint),
    value,
  };
}

/** The field only programs fill (the spam defences' honeypot): `className` takes it off screen. */
export const honeypotHtml = (className: string) =>
  `<div aria-hidden="true" class="${className}"><label>Website <input type="text" name="website" tabindex="-1" autocomplete="off"></label></div>`;

type FormFields<F extends string> = ReturnType<typeof formFieldsHtml<F>>;

/** Contact fields a form has: who writes, and about what. */
type Contact = "name" | "email" | "service";

/** The field of a form sent again with an address the reader was asked about: the address kept. */
const keptAddress = "emailKept";

/** A form's address whose domain looks mistyped, and the one suggested (contract/mail-domains.ts). */
export type Mistyped = { typed: string; suggested: string };

/**
 * The form's address and the one suggested, when its domain looks mistyped and the reader
 * did not send it again as it was after being asked (`keptAddress`); else null. Asked once:
 * the address the reader insists on is taken.
 */
export function mistypedAddress(form: URLSearchParams): Mistyped | null {
  const typed = (form.get("email") ?? "").trim();
  const suggested = keptAddressOf(form) ? null : suggestedAddress(typed);
  return suggested ? { typed, suggested } : null;
}

/**
 * The address the reader was asked about and sent again as it was, or "": it stays
 * kept in every page the form comes back on (another field to correct, a review to
 * change, a time taken meanwhile), so the reader is not asked twice.
 */
export function keptAddressOf(form: URLSearchParams): string {
  const kept = form.get(keptAddress) ?? "";
  return kept !== "" && kept === (form.get("email") ?? "").trim() ? kept : "";
}

/** The kept address as the form carries it on: a hidden field ("" when none). */
export const keptAddressHtml = (kept: string | undefined) =>
  kept ? hidden(keptAddress, kept) : "";

/** "Did you mean …?" beside the email field, and the address kept if the form is sent as it is. */
export const mistypedHtml = ({ typed, suggested }: Mistyped, className: string) =>
  `<p class="${className}" role="status">Did you mean <strong>${escapeHtml(suggested)}</strong>? Correct the address above, or send the form again to keep ${escapeHtml(typed)}.</p>${keptAddressHtml(typed)}`;

/**
 * "Your name", "Your email" and the "Service" select of the site's services and
 * "Something else", as the enquiry and booking forms both ask it (the islands' ContactFields).
 */
export function contactFieldsHtml(
  form: FormFields<Contact>,
  services: { id: string; title: string }[],
  chosen: string,
  mistyped: Mistyped | null = null,
  kept = "",
): string {
  const choices = [...services, { id: otherService, title: otherServiceLabel }];
  return `${form.text("name", "Your name", ` required maxlength="${limits.enquiryNameMax}" autocomplete="name"`)}
${form.field("email", "Your email", (marks) => `<input ${marks} type="email" required maxlength="${limits.emailMax}" autocomplete="email" value="${form.value("email")}">`)}
${mistyped ? mistypedHtml(mistyped, "note") : keptAddressHtml(kept)}
${form.field(
  "service",
  "Service",
  (marks) => `<select ${marks} required>
<option value=""${chosen ? "" : " selected"}>Choose a service</option>
${choices
  .map(
    (choice) =>
      `<option value="${escapeHtml(choice.id)}"${choice.id === chosen ? " selected" : ""}>${escapeHtml(choice.title)}</option>`,
  )
  .join("")}
</select>`,
)}`;
}
