import type { Migration } from "kysely/migration";
import { engagementTables } from "./migrations/001-engagement.ts";
import { unsubscribedTokens } from "./migrations/002-unsubscribed-tokens.ts";
import { newsletter } from "./migrations/003-newsletter.ts";
import { moderation } from "./migrations/004-moderation.ts";
import { notifications } from "./migrations/005-notifications.ts";
import { ownerConsole } from "./migrations/006-console.ts";
import { ownerComments } from "./migrations/008-owner-comments.ts";
import { enquiriesMigration } from "./migrations/009-enquiries.ts";
import { commentThreads } from "./migrations/010-comment-threads.ts";
import { lessKeptAtRest } from "./migrations/011-less-kept-at-rest.ts";
import { ownerSessionDevices } from "./migrations/012-owner-session-devices.ts";
import { spamFilter } from "./migrations/013-spam-filter.ts";
import { replyNotifications } from "./migrations/014-reply-notifications.ts";
import { importSources } from "./migrations/015-import-sources.ts";
import { spentFormTokens } from "./migrations/016-spent-form-tokens.ts";
import { outboxKindsUnchecked } from "./migrations/017-outbox-kinds-unchecked.ts";
import { spamExampleFeatures } from "./migrations/018-spam-example-features.ts";
import { assistantQuestions } from "./migrations/019-assistant-questions.ts";
import { bookings } from "./migrations/020-bookings.ts";
import { readers } from "./migrations/021-readers.ts";
import { fediverse } from "./migrations/022-fediverse.ts";
import { listHealth } from "./migrations/023-list-health.ts";
import { readerVisitViews } from "./migrations/027-reader-visit-views.ts";
import { editionSchedules } from "./migrations/029-edition-schedules.ts";
import { conversionDays } from "./migrations/030-conversion-days.ts";
import { conversionCounts } from "./migrations/031-conversion-counts.ts";
import { readingNow } from "./migrations/032-reading-now.ts";
import { readerViewCounts } from "./migrations/033-reader-view-counts.ts";
import { readerRowsByKey } from "./migrations/034-reader-rows-by-key.ts";
import { fediverseQueueLeaseTokens } from "./migrations/035-fediverse-queue-lease-tokens.ts";
import { fediverseQueueFailures } from "./migrations/036-fediverse-queue-failures.ts";
import { replyStops } from "./migrations/037-reply-stops.ts";
import { fediverseGivenUp } from "./migrations/038-fediverse-given-up.ts";
import { finishedMailTokens } from "./migrations/039-finished-mail-tokens.ts";
import { replyAddressesByName } from "./migrations/040-reply-addresses-by-name.ts";
import { lookupsByIndex } from "./migrations/041-lookups-by-index.ts";
import { bookingsByTime } from "./migrations/042-bookings-by-time.ts";
import { ownerListsByIndex } from "./migrations/043-owner-lists-by-index.ts";
import { ownerListsPaged } from "./migrations/044-owner-lists-paged.ts";
import { outboxMarks } from "./migrations/045-outbox-marks.ts";
import { fediverseQueueSlow } from "./migrations/046-fediverse-queue-slow.ts";
import { rejectionsForgotten } from "./migrations/047-rejections-forgotten.ts";
import { suppressionsDigested } from "./migrations/048-suppressions-digested.ts";
import { addressesDigested } from "./migrations/049-addresses-digested.ts";
import { enquiryZones } from "./migrations/050-enquiry-zones.ts";
import { snsMessagesTaken } from "./migrations/051-sns-messages-taken.ts";
import { ownerSessionPasskeys } from "./migrations/052-owner-session-passkeys.ts";
import { networksCounted } from "./migrations/053-networks-counted.ts";
import { standingLinksSeeded } from "./migrations/054-standing-links-seeded.ts";
import { eventsByComment } from "./migrations/055-events-by-comment.ts";
import { outboxByAge } from "./migrations/056-outbox-by-age.ts";
import { readerDayZones } from "./migrations/057-reader-day-zones.ts";
import { notMadeByDigest } from "./migrations/058-not-made-by-digest.ts";
import { ownerMoves } from "./migrations/059-owner-moves.ts";
import { bookingsMade } from "./migrations/060-bookings-made.ts";
import { commentDirections } from "./migrations/061-comment-directions.ts";
import { eventDirections } from "./migrations/062-event-directions.ts";
import { undeliverableBookings } from "./migrations/063-undeliverable-bookings.ts";
import { outboxSeries } from "./migrations/064-outbox-series.ts";
import type { DatabaseKind } from "./schema.ts";

/**
 * One migration list for both databases, one file per migration under
 * migrations/; the few dialect differences are confined to
 * migrations/dialect.ts. A migration that has shipped is frozen text: it
 * never reads today's constants (a list of reaction types, of outbox kinds)
 * and is never edited; a change is the next migration.
 * server/db/migrations.test.ts pins the text of each shipped one.
 */

/**
 * Migrations by name; names sort in the order they apply. `addressKey`: the
 * site's keyed digest of a suppressed address (server/outbox/suppressions.ts),
 * which migrations 048 and 049 need for the rows they convert.
 */
export function migrations(
  kind: DatabaseKind,
  addressKey?: (email: string) => string,
): Record<string, Migration> {
  return {
    "001_engagement": engagementTables(kind),
    "002_unsubscribed_tokens": unsubscribedTokens(kind),
    "003_newsletter": newsletter(kind),
    "004_moderation": moderation(kind),
    "005_notifications": notifications(kind),
    "006_console": ownerConsole(kind),
    "008_owner_comments": ownerComments(),
    "009_enquiries": enquiriesMigration(kind),
    "010_comment_threads": commentThreads(kind),
    "011_less_kept_at_rest": lessKeptAtRest(),
    "012_owner_session_devices": ownerSessionDevices(),
    "013_spam_filter": spamFilter(kind),
    "014_reply_notifications": replyNotifications(kind),
    "015_import_sources": importSources(kind),
    "016_spent_form_tokens": spentFormTokens(kind),
    "017_outbox_kinds_unchecked": outboxKindsUnchecked(kind),
    "018_spam_example_features": spamExampleFeatures(),
    "019_assistant_questions": assistantQuestions(kind),
    "020_bookings": bookings(kind),
    "021_readers": readers(kind),
    "022_fediverse": fediverse(kind),
    "023_list_health": listHealth(kind),
    "027_reader_visit_views": readerVisitViews(),
    "029_edition_schedules": editionSchedules(kind),
    "030_conversion_days": conversionDays(),
    "031_conversion_counts": conversionCounts(kind),
    "032_reading_now": readingNow(kind),
    "033_reader_view_counts": readerViewCounts(kind),
    "034_reader_rows_by_key": readerRowsByKey(kind),
    "035_fediverse_queue_lease_tokens": fediverseQueueLeaseTokens(),
    "036_fediverse_queue_failures": fediverseQueueFailures(kind),
    "037_reply_stops": replyStops(kind),
    "038_fediverse_given_up": fediverseGivenUp(kind),
    "039_finished_mail_tokens": finishedMailTokens(),
    "040_reply_addresses_by_name": replyAddressesByName(kind),
    "041_lookups_by_index": lookupsByIndex(),
    "042_bookings_by_time": bookingsByTime(),
    "043_owner_lists_by_index": ownerListsByIndex(),
    "044_owner_lists_paged": ownerListsPaged(),
    "045_outbox_marks": outboxMarks(kind),
    "046_fediverse_queue_slow": fediverseQueueSlow(kind),
    "047_rejections_forgotten": rejectionsForgotten(),
    "048_suppressions_digested": suppressionsDigested(kind, addressKey),
    "049_addresses_digested": addressesDigested(addressKey),
    "050_enquiry_zones": enquiryZones(),
    "051_sns_messages_taken": snsMessagesTaken(kind),
    "052_owner_session_passkeys": ownerSessionPasskeys(),
    "053_networks_counted": networksCounted(),
    "054_standing_links_seeded": standingLinksSeeded(),
    "055_events_by_comment": eventsByComment(kind),
    "056_outbox_by_age": outboxByAge(),
    "057_reader_day_zones": readerDayZones(),
    "058_not_made_by_digest": notMadeByDigest(),
    "059_owner_moves": ownerMoves(),
    "060_bookings_made": bookingsMade(kind),
    "061_comment_directions": commentDirections(),
    "062_event_directions": eventDirections(),
    "063_undeliverable_bookings": undeliverableBookings(),
    "064_outbox_series": outboxSeries(),
  };
}
