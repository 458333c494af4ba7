import { createFormTokens } from "../../../server/lib/form-token.ts";
import type { movableClock } from "./clock.ts";
import { type MailingApp, mailingApp } from "./mailing-app.ts";
import type { Backend } from "./test-app.ts";

/** Where the owner of the bookings' test apps is mailed, and the zone of their hours. */
export const owner = "owner@example.com";
export const ownerZone = "Europe/London";
export const cookieSecret = "booking-tests-cookie-secret-0123456789abcdef";

/** The booking form's signed times under the apps' secret. */
export const formTokens = createFormTokens(cookieSecret, {
  purpose: "booking form timing",
  minimumMs: 0,
});
/** The form's signed time as the page holds it once a person has had time to fill it. */
export const aged = () => formTokens.issue(Date.now() - 60_000);

/**
 * A test app for booked calls (`mailingApp`): the owner at `owner` with hours in
 * `ownerZone`, the hour's limit per connection out of the way, its mail sent by `clock`;
 * `env` comes over that.
 */
export function bookingsApp(
  backend: Backend,
  clock: ReturnType<typeof movableClock>,
  env: Record<string, string>,
  started: (app: MailingApp) => void,
) {
  mailingApp(
    backend,
    {
      env: {
        COOKIE_SECRET: cookieSecret,
        OWNER_EMAIL: owner,
        BOOKING_TIMEZONE: ownerZone,
        BOOKINGS_PER_HOUR: "1000",
        ...env,
      },
      mail: { clock: clock.now },
    },
    started,
  );
}
