import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { migrations } from "./migrations.ts";

/*
 * A shipped migration is history: databases out there have run it, so its
 * text never changes, and it never reads a constant that could (the reaction
 * types, the outbox kinds). A change to the schema is the next migration.
 * Each shipped migration's file is pinned here by its SHA-256, with the
 * helpers they share. Pin a new migration as it lands on main, which is
 * what deploys; a pin changes only with a rewrite that leaves every
 * database it makes, at every step, the same (the outbox's rebuilds, folded
 * into dialect.ts; 061's cleaning, into text-directions.ts for the import).
 */
const shipped: [name: string, file: string, sha256: string][] = [
  [
    "001_engagement",
    "001-engagement.ts",
    "25661775613b7f9c9857d9c19e005c67a59daae7e1832f8a3a8f3231d7821992",
  ],
  [
    "002_unsubscribed_tokens",
    "002-unsubscribed-tokens.ts",
    "d5bcdddf811fa13b0ccd79efd095ea39ad971ea4932bfcd21fbd04662f40cba8",
  ],
  [
    "003_newsletter",
    "003-newsletter.ts",
    "aa5007499041e5d32a1e023ca654d865ff5c44bc9545231bcf6b17ddbbdf59cd",
  ],
  [
    "004_moderation",
    "004-moderation.ts",
    "a1f45257d71becea75ea98de8e06010749d894189d3056596f73022b4c54a513",
  ],
  [
    "005_notifications",
    "005-notifications.ts",
    "0bac29a66e89e57560e4901347a41cb6284517b6c7697f15cca65219366b3708",
  ],
  [
    "006_console",
    "006-console.ts",
    "b8deeda046b83741cfdbea5ca06592955b93e2850df69d070103a9f31da98b99",
  ],
  [
    "008_owner_comments",
    "008-owner-comments.ts",
    "573a4e5bfae73f45a4beb565cb14808274d8eb5966f5e63da65b371f05d4496e",
  ],
  [
    "009_enquiries",
    "009-enquiries.ts",
    "efd96889dfb494c73221978b64bd6706a898166ad7059f123793fae6238a2c40",
  ],
  [
    "010_comment_threads",
    "010-comment-threads.ts",
    "3a1ddbfadf126f48929025b2cae448aaf9c6fcd4c39815bfb403c388db87140e",
  ],
  [
    "011_less_kept_at_rest",
    "011-less-kept-at-rest.ts",
    "055c4090186b5cc83d6011962c1d1db9dc49734fa06d1197181afc02c8818605",
  ],
  [
    "012_owner_session_devices",
    "012-owner-session-devices.ts",
    "c8bce638d194754d2d3b46151e460c373fe209a511337edec276885b552d522a",
  ],
  [
    "013_spam_filter",
    "013-spam-filter.ts",
    "c8d6a5d6593d2aa411f277c35aec60e8f41d537f1a072b95867ee14ccb35df19",
  ],
  [
    "014_reply_notifications",
    "014-reply-notifications.ts",
    "8378b18c7c44b72cab97a2c5fb34ba39c1312c22866d0cfa4bbef916b5a3a848",
  ],
  [
    "015_import_sources",
    "015-import-sources.ts",
    "8d1a483b755677db9b8ec6d8ec46c276b051e404b8b74ccbe0938030a423be99",
  ],
  [
    "016_spent_form_tokens",
    "016-spent-form-tokens.ts",
    "dcbdeade2270e9a7ae194b113ab3050c42c174954a78f1dbea269b85a5c86054",
  ],
  [
    "017_outbox_kinds_unchecked",
    "017-outbox-kinds-unchecked.ts",
    "8903c2574e8b9631525e9d76d9d00d0f9a06a1f8864b3fc31ea51a2210401c6b",
  ],
  [
    "018_spam_example_features",
    "018-spam-example-features.ts",
    "93e731f2bfd391d16d400a086e85db5011e3712faaf07f885842e6dcf9b40397",
  ],
  [
    "019_assistant_questions",
    "019-assistant-questions.ts",
    "2c55843a1faf4c356b66675a3a60e91d08e50539ac2b4a19552a337039395951",
  ],
  [
    "020_bookings",
    "020-bookings.ts",
    "5263bff7729c6dcfa884a32c303a280d5ccbf8a293daaeae476373c7ef0e8011",
  ],
  [
    "021_readers",
    "021-readers.ts",
    "f4a5bea66ac9a523de0920a54cf6b061011f97ca60ec9e45d33413130a39b35c",
  ],
  [
    "022_fediverse",
    "022-fediverse.ts",
    "6b30d64b3551969fcda5d9d517303c2280c17f45301c7ca1105f0ba248617540",
  ],
  [
    "023_list_health",
    "023-list-health.ts",
    "0b734d8d7726cb1c00b52e860db909c406ec844430d77916c831924ce8d32e3c",
  ],
  [
    "027_reader_visit_views",
    "027-reader-visit-views.ts",
    "282095405607ebda9e837d7030c836bc8e8905b21323789057971146f2d82d57",
  ],
  [
    "029_edition_schedules",
    "029-edition-schedules.ts",
    "a8f145032ca7495169cf4d4f09d4e1bc93a3da6f707e3d291138d4ebecb7dfbe",
  ],
  [
    "030_conversion_days",
    "030-conversion-days.ts",
    "cdb003c0ac5acc90b1a3724541983153f990b3c116a278c4ff860ed7be9e52ae",
  ],
  [
    "031_conversion_counts",
    "031-conversion-counts.ts",
    "82cdf648b1791145bfa00931251f6fe5834f6a08037d9985a36dcb68a51cf610",
  ],
  [
    "032_reading_now",
    "032-reading-now.ts",
    "17d0f2d963c93f6c09183a669779de6c65c876f88c3d534b943c6d301bb8ceb5",
  ],
  [
    "033_reader_view_counts",
    "033-reader-view-counts.ts",
    "edb4642846c8dae1649ca20796d3f34425e9a3a721893763e174fd4a56309e9b",
  ],
  [
    "034_reader_rows_by_key",
    "034-reader-rows-by-key.ts",
    "dc30c3c9501ec9424afadc1ef06ebe634b672911b3ac25abd689c8901924da2a",
  ],
  [
    "035_fediverse_queue_lease_tokens",
    "035-fediverse-queue-lease-tokens.ts",
    "8529112946c4dcd83abcb447c087a05645c58833849d556d399ea11a4caf6d11",
  ],
  [
    "036_fediverse_queue_failures",
    "036-fediverse-queue-failures.ts",
    "d0c1ee674073da1bb956b5374e1f158711ca18c502042f0af68c74ef35ebf83c",
  ],
  [
    "037_reply_stops",
    "037-reply-stops.ts",
    "b6093352b1b5edbaeb8ed61719a2e8124f5146642c9ffd0d68476a1d9ffdaa0f",
  ],
  [
    "038_fediverse_given_up",
    "038-fediverse-given-up.ts",
    "e0be7bd4c4d8f25777d81b7fd7e248d2a140239566492553d6ec8fc2aff592db",
  ],
  [
    "039_finished_mail_tokens",
    "039-finished-mail-tokens.ts",
    "d85b91f6f40b58d2c393f4c81c843129321815ed1755c2856810bc964bbc751b",
  ],
  [
    "040_reply_addresses_by_name",
    "040-reply-addresses-by-name.ts",
    "7d62924b1f33caf2bd39427b4988e39524db992973888975a5e25b19a3a1cfad",
  ],
  [
    "041_lookups_by_index",
    "041-lookups-by-index.ts",
    "b978f6d1c7af0def3e1625f8a765d5c7847a568961079222a96ecdc4d243313a",
  ],
  [
    "042_bookings_by_time",
    "042-bookings-by-time.ts",
    "4de71ff89c8b15d3a2f15bce12b66e9b51b18e04737a3283dbf12d9903d0b1ba",
  ],
  [
    "043_owner_lists_by_index",
    "043-owner-lists-by-index.ts",
    "25a0184cf2145ca9838e6f8c5503ec65af2b24f881f58c2cf7911429721f27e6",
  ],
  [
    "044_owner_lists_paged",
    "044-owner-lists-paged.ts",
    "c4d0b47d5f3ba05b9d3b70bbcf13f18736af10b18374fceb8f65fcd512519fb0",
  ],
  [
    "045_outbox_marks",
    "045-outbox-marks.ts",
    "52dc2ad9a213fd7df1b185d94181b55d3235e2e89f053b6434a3d4fe66561542",
  ],
  [
    "046_fediverse_queue_slow",
    "046-fediverse-queue-slow.ts",
    "0e1dd50466badc9ada114e922894374cbe823b327fc5dbdd7e61a9911b112df0",
  ],
  [
    "047_rejections_forgotten",
    "047-rejections-forgotten.ts",
    "4a7bb97ad8c90b3df46653f96e3923e3c2d6669b68eb18fae703b94b40601716",
  ],
  [
    "048_suppressions_digested",
    "048-suppressions-digested.ts",
    "d401084e5f97f177c201455d2d83519ad738e1a188bd65209c0e5844ae8fc536",
  ],
  [
    "049_addresses_digested",
    "049-addresses-digested.ts",
    "553f01d4bd3095a3e9ddd73fa574791b178bcb0f281bf0922a8c410f32af5f50",
  ],
  [
    "050_enquiry_zones",
    "050-enquiry-zones.ts",
    "2e1cad47384dd654d83212becb5fe44519b8c3376b8b5574f4b5b0341cba328c",
  ],
  [
    "051_sns_messages_taken",
    "051-sns-messages-taken.ts",
    "30f659f1031eac4bc932151ebbaa716d008819216a4af28c3afe0c3aa46898f4",
  ],
  [
    "052_owner_session_passkeys",
    "052-owner-session-passkeys.ts",
    "b4cca9c0e544c76de206cd572773d81f4acc34fbec6e44eddbb82c932a540328",
  ],
  [
    "053_networks_counted",
    "053-networks-counted.ts",
    "1e21c3f0428d9282ca63b299ca779401c5312c6caf6f886cc597bf094854e8a6",
  ],
  [
    "054_standing_links_seeded",
    "054-standing-links-seeded.ts",
    "3761d063d3be15f8121065f1d0ba32c965a06d245b21ea7ad850d651534660ce",
  ],
  [
    "055_events_by_comment",
    "055-events-by-comment.ts",
    "dc6034f348f7c9deb5cf24be7a1613ca6e2b788d3ab6eba599e59f3aeb349d76",
  ],
  [
    "056_outbox_by_age",
    "056-outbox-by-age.ts",
    "af5a0c9c98c84f06ac401f9b4bdadb67e61ee651c77cebb387820759d0032562",
  ],
  [
    "057_reader_day_zones",
    "057-reader-day-zones.ts",
    "ef6c67257188940111d82c3c2cdfd2818928fe55e61b67d09d0d84cecc1ba537",
  ],
  [
    "058_not_made_by_digest",
    "058-not-made-by-digest.ts",
    "feaab4d745d4de60d2afe509fbb618d9c9214dd913172a461d539063f3f2135c",
  ],
  [
    "059_owner_moves",
    "059-owner-moves.ts",
    "be6e408e3daeafdf2832ed00a6771399e83e8e95340f4fcba5759d9c963c2d48",
  ],
  [
    "060_bookings_made",
    "060-bookings-made.ts",
    "bd68538f35a09027e667e4a456279bcdff52ee03fd39020c194a4a984119937b",
  ],
  [
    "061_comment_directions",
    "061-comment-directions.ts",
    "0dd3b97584f66b27c68f6f48d28dbe70d90ad34ee96a4821a010af55ce7201fc",
  ],
  [
    "062_event_directions",
    "062-event-directions.ts",
    "3f11dddd66f0d742d67c79c297ae2daee7c7adc66400b8cb7d0b683497f1f8e1",
  ],
  [
    "063_undeliverable_bookings",
    "063-undeliverable-bookings.ts",
    "f01da78f44bcd823f5b90001aae44ce2e194b9aabd88d174d6a76778fcd2c8d9",
  ],
  [
    "064_outbox_series",
    "064-outbox-series.ts",
    "8032b25c8157aa874086ee40bc35ecd43ce0489a9db0f1760f39f153e498d7b4",
  ],
];
const sharedHelpers: [file: string, sha256: string][] = [
  ["dialect.ts", "f1db253aa8f522d030d249a3ac8facecb3b06537950eff92d010a89c155588d7"],
  ["text-directions.ts", "6276154a4cb1dea91b7a4e5ec7f03ab51dbf958d6c82d18993ea0b3ca4bd03b0"],
];

const folder = path.join(import.meta.dirname, "migrations");
const sha256 = (file: string) =>
  createHash("sha256")
    .update(readFileSync(path.join(folder, file)))
    .digest("hex");

describe("shipped migrations", () => {
  it.each(shipped)("%s keeps the text it shipped with", (_name, file, pinned) => {
    expect(sha256(file)).toBe(pinned);
  });

  it.each(sharedHelpers)("keep the helper %s they were written with", (file, pinned) => {
    expect(sha256(file)).toBe(pinned);
  });

  it("read no live constant: they import only Kysely, the schema's types and each other", () => {
    for (const [, file] of shipped) {
      const imports = [
        ...readFileSync(path.join(folder, file), "utf8").matchAll(/from "([^"]+)"/g),
      ].map((match) => match[1]);
      expect(
        imports.every((from) =>
          /^(kysely(\/migration)?|\.\.\/schema\.ts|\.\/[\w-]+\.ts)$/.test(from ?? ""),
        ),
      ).toBe(true);
    }
  });

  it("run first, in the order they shipped, on both databases", () => {
    for (const kind of ["sqlite", "postgres"] as const) {
      expect(Object.keys(migrations(kind)).slice(0, shipped.length)).toEqual(
        shipped.map(([name]) => name),
      );
    }
  });

  // Kysely runs pending migrations in the order of their names, whatever the
  // list's order: a new one named below a shipped one would run after it in
  // the field (docs/decisions/044-readers-without-cookies.md, "Migrations that
  // land out of order").
  it("are listed in the order of their names, which no new migration's name comes before", () => {
    for (const kind of ["sqlite", "postgres"] as const) {
      const names = Object.keys(migrations(kind));
      expect(names).toEqual([...names].sort((a, b) => a.localeCompare(b)));
    }
  });
});
