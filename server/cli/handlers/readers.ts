import { conversionKinds, labelOf } from "../../../contract/reader-kinds.ts";
import { type ReaderDimension, type ReaderFigure, zoneNote } from "../../../contract/readers.ts";
import { zoneName } from "../../../contract/time-zones.ts";
import { createBookingSettings, ownerZoneIn } from "../../bookings/settings-repository.ts";
import { createReadersReport, sinceToPeriod } from "../../readers/report.ts";
import { createReaders } from "../../readers/service.ts";
import { type CommandContext, usageError } from "../command.ts";
import { formatTable, printedJson } from "../table.ts";

export async function readers({ values, stdout, config, store, clock }: CommandContext) {
  const since = typeof values.since === "string" ? values.since : "7d";
  // Malformed, it is refused before the database is opened; a day after today, once it is.
  if (!sinceToPeriod(since, "9999-12-31")) {
    throw usageError(
      `--since takes a number of days or weeks (7d, 4w) or a first day (2026-11-01), not "${since}".`,
    );
  }
  const database = await store();
  const bookings = createBookingSettings(database, clock);
  const counter = createReaders({
    store: database,
    enabled: config.ANALYTICS,
    rawDays: config.ANALYTICS_RAW_DAYS,
    siteUrl: config.siteUrl,
    ownerCookie: "",
    ownerZone: async () => ownerZoneIn(await bookings.availability(), config.bookingTimeZone),
    clock,
  });
  const today = await counter.today();
  const period = sinceToPeriod(since, today.day);
  if (!period) {
    // A day after today is refused too: say which day is today's.
    throw usageError(
      `--since takes a number of days or weeks (7d, 4w) or a first day up to today, ${today.day} (${zoneName(today.zone)}), not "${since}".`,
    );
  }
  const report = await createReadersReport(counter, clock).full(period);
  if (printedJson({ values, stdout }, report)) return;
  const share = (figure: ReaderFigure) =>
    figure.visitors && figure.engaged !== null
      ? `${Math.round((100 * figure.engaged) / figure.visitors)}%`
      : "-";
  /** A table under its title, or the title and "none". */
  const titled = (title: string, header: string[], rows: (string | number)[][]) =>
    rows.length === 0 ? `${title}: none\n` : `${title}\n${formatTable(header, rows, { names: 1 })}`;
  const figures = (
    title: string,
    dimension: ReaderDimension,
    rows: ReaderFigure[],
    engaged = false,
  ) =>
    titled(
      title,
      [title.toLowerCase(), "visitors", "views", ...(engaged ? ["engaged"] : [])],
      rows.map((row) => [
        labelOf(dimension, row.value),
        row.visitors,
        row.views,
        ...(engaged ? [share(row)] : []),
      ]),
    );
  const conversions = (title: string, heading: string, rows: typeof report.conversions.bySource) =>
    titled(
      title,
      [heading, ...conversionKinds, "total"],
      rows.map((row) => [row.value, ...conversionKinds.map((kind) => row[kind]), row.total]),
    );
  stdout.write(
    [
      `Readers from ${report.from} to ${report.to} (${zoneNote(report)})${config.ANALYTICS ? "" : ", counting is off (ANALYTICS=off)"}`,
      `Visitors: ${report.visitors}   Views: ${report.views}   Reading now: ${report.readingNow}\n`,
      formatTable(
        ["day", "visitors", "views"],
        report.days.map((day) => [day.day, day.visitors, day.views]),
        { names: 1 },
      ),
      figures("Pages", "page", report.pages, true),
      figures("Sources", "source", report.sources),
      figures("Campaigns", "campaign", report.campaigns),
      figures("Countries", "country", report.countries),
      figures("Devices", "device", report.devices),
      conversions("Conversions by entry page", "entry page", report.conversions.byEntryPage),
      conversions("Conversions by source", "source", report.conversions.bySource),
    ].join("\n"),
  );
}
