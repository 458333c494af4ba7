import type { ReactNode } from "react";
import { otherService, otherServiceLabel } from "../../../contract/enquiry-choices.ts";
import { limits } from "../../../contract/limits.ts";
import { AddressSuggestion, useLeftValue } from "./address-suggestion.tsx";

/** What a field's control carries so that its label and its problem are read out with it. */
type FieldControl = {
  id: string;
  "aria-invalid": true | undefined;
  "aria-describedby": string | undefined;
};

/** How a form draws its fields: class names, and a box around a field where its layout wants one. */
type FieldLook = { label: string; control: string; problem: string };

/**
 * One field of a reader's form: its label, its control, and what the server
 * found wrong with it, which describes the control. `hint` is the id of more
 * that describes it (a length, an example), drawn by the control's own code.
 * With `box` the field sits in an element of its own with that class.
 */
export function FormField({
  id,
  label,
  problem,
  hint,
  look,
  box,
  children,
}: {
  id: string;
  label: ReactNode;
  problem: string | undefined;
  hint?: string;
  look: FieldLook;
  box?: string;
  children: (control: FieldControl) => ReactNode;
}) {
  const problemId = `${id}-problem`;
  const described = [problem ? problemId : "", hint ?? ""].filter(Boolean).join(" ");
  const field = (
    <>
      <label htmlFor={id} className={look.label}>
        {label}
      </label>
      {children({
        id,
        "aria-invalid": problem ? true : undefined,
        "aria-describedby": described || undefined,
      })}
      {problem ? (
        <p id={problemId} className={look.problem}>
          {problem}
        </p>
      ) : null}
    </>
  );
  return box === undefined ? field : <div className={box || undefined}>{field}</div>;
}

/**
 * After a refusal the focus goes to the first field marked invalid, whose name, state and
 * problem a screen reader then reads, or else to the form's `alert` (nothing to correct).
 */
export function focusFirstProblem(form: Element | null | undefined, alert: HTMLElement | null) {
  (form?.querySelector<HTMLElement>('[aria-invalid="true"]') ?? alert)?.focus();
}

export type ServiceChoice = { id: string; title: string };
type Contact = { name: string; email: string; service: string };

/** The two text fields of ContactFields, each with its own autocomplete token, its name. */
const textFields = [
  { name: "name", label: "Your name", type: "text", maxLength: limits.enquiryNameMax },
  { name: "email", label: "Your email", type: "email", maxLength: limits.emailMax },
] as const;

/**
 * Who is writing and about what, as the enquiry and booking forms both ask
 * it: "Your name", "Your email" and the "Service" select of the nine services
 * and "Something else". `boxes` puts a field in an element of that class.
 */
export function ContactFields({
  id,
  values,
  problems,
  change,
  services,
  look,
  boxes = {},
}: {
  id: string;
  values: Contact;
  problems: Partial<Record<keyof Contact, string>>;
  change: (name: keyof Contact) => (value: string) => void;
  services: ServiceChoice[];
  look: FieldLook;
  boxes?: Partial<Record<keyof Contact, string>>;
}) {
  const email = useLeftValue();
  return (
    <>
      {textFields.map(({ name, label, type, maxLength }) => (
        <FormField
          key={name}
          id={`${id}-${name}`}
          label={label}
          problem={problems[name]}
          look={look}
          box={boxes[name]}
        >
          {(control) => (
            <input
              {...control}
              name={name}
              type={type}
              required
              maxLength={maxLength}
              autoComplete={name}
              className={look.control}
              value={values[name]}
              onChange={(event) => change(name)(event.target.value)}
              onBlur={name === "email" ? email.onBlur : undefined}
            />
          )}
        </FormField>
      ))}
      <AddressSuggestion
        field={`${id}-email`}
        left={email.left}
        accept={(suggested) => {
          change("email")(suggested);
          email.setLeft(suggested);
        }}
        className={`${boxes.service ?? ""} text-sm empty:sr-only`}
      />
      <FormField
        id={`${id}-service`}
        label="Service"
        problem={problems.service}
        look={look}
        box={boxes.service}
      >
        {(control) => (
          <select
            {...control}
            name="service"
            required
            className={look.control}
            value={values.service}
            onChange={(event) => change("service")(event.target.value)}
          >
            <option value="" disabled>
              Choose a service
            </option>
            {services.map((service) => (
              <option key={service.id} value={service.id}>
                {service.title}
              </option>
            ))}
            <option value={otherService}>{otherServiceLabel}</option>
          </select>
        )}
      </FormField>
    </>
  );
}
