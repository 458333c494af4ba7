/**
 * How the assistant's search judges an answer (retrieval.ts): each bound
 * measured by `npm run assistant:eval` on the project's question set
 * (scripts/assistant-questions.ts).
 */

/**
 * The best passage must hold at least this share of the question's words,
 * each weighed by its rarity on the site: a word the site never uses weighs
 * most, so "the capital of Australia" is not answered from a page that names
 * a capital.
 */
export const coverageMin = 0.5;
/** A question about the engineer's help needs less of its words in the service it names. */
export const serviceCoverageMin = 0.3;
/** ...and score at least this (BM25, with the boosts of the index's title and heading). */
export const scoreMin = 6;
/** The best passages ranked again for the question's neighbouring words, and by how much each pair weighs. */
export const pairsRanked = 8;
export const pairWeight = 0.5;
/**
 * A service's page answers a question put to the engineer ("Do you calibrate
 * engines?"); to one that is not ("What is balance of plant?") its passages weigh
 * this much, so that the writing answers first.
 */
export const offeringWeight = 0.6;
/** The home page points to the writing in a line a piece: its passages weigh this much against the piece's own. */
export const homeWeight = 0.5;
/** A word in at most this share of the passages is seldom used (6 of 383). */
export const seldomShare = 1 / 60;
/** How far down the results an answer is looked for: the first that holds enough of the question. */
export const judgedMax = 20;
/**
 * ...and it scores at least this share of every passage of another page: a
 * passage far below one that does not answer only shares some of the question's
 * words with it, the subject being the other's ("How does a jet engine work?":
 * the engine's pages, then a hydrogen jet's flame).
 */
export const otherPageShare = 0.7;
/** Further sources score at least this share of the best. */
export const furtherShare = 0.35;
/**
 * A misspelt word is found within two letters, among the query's first words: each
 * word searched for its misspellings walks the index, and a question of long words
 * (with the one before it) cost up to 70 ms of the one thread every reader shares.
 */
export const fuzzyTermsMax = 20;
