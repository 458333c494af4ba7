import { wordsOf } from "./reading.ts";
import { processTerm } from "./terms.ts";

/*
 * What a question asks, read from its wording before any page's words are
 * searched: the engineer's help, the engineer, the site, a way to reach them,
 * or a subject; and whether it leans on the question before it.
 */

/** Questions about the engineer's help rather than about a subject. */
export const askingForHelp =
  /\b(help|hire|hiring|price|prices|pricing|cost|costs|quote|rate|rates|fee|fees|train|training|course|courses|workshop|service|services|consult\w*|engage\w*|offer|offers|(?:do|would|will) you charge|can you|could you|would you|do you (do|provide|build|make)|review (our|my)|build (us|me|our|my)|for (us|our team|my team|my company)|(a|the) typical (project|engagement|job))\b/i;
/** Words that ask for help without naming a subject, as `terms.ts` reads them. */
const helpWords = new Set(
  "help hire price pricing cost quote rate fee offer service consult consulting engage charge"
    .split(" ")
    .flatMap((word) => processTerm(word) ?? []),
);
/** A word of the question that asks for help and names no subject ("price", "cost"). */
export const helpOnly = (terms: string[]) => terms.every((term) => helpWords.has(term));
/**
 * Questions about the engineer rather than a subject, answered from About: who
 * they are, where, since when and what they studied by its header (its first
 * passage); their career and why they write by the passage that says it.
 */
export const askingWhoTheyAre =
  /\b(who (are you|is behind|writes|runs|made|owns|is the (engineer|author|writer))|(about|introduce) yourself|tell me about you|your (background|qualifications?|education|degrees?)|where are you( based| from| located)?|how (many years|long) have you|years of (experience|practice))\b/i;
export const askingTheirStory =
  /\b(your (career|story|journey|experience)|why did you (start|write|create|begin|make))\b/i;
/** Asking what the site is for, or why the engineer writes it: About's part on the site answers. */
export const askingAboutTheSite =
  /\b(why (do|did) you (write|blog|run|keep)|why did you (start|create|begin|make)\b.*\b(web ?site|site|blog)|why (this|your|the) (web ?site|site|blog)|what is (this|your) (web ?site|site|blog)( (about|for))?\s*\??\s*$|what (will|can|do|would) (i|we|one|readers?) (find|read|learn) (here|on (this|your|the) (web ?site|site|blog))\b)/i;
/** Asking how to reach the engineer, or when they are free: no page's words answer that. */
export const askingToReach =
  /\b((contact|reach|e-?mail|phone|call|whatsapp|meet|get in touch with|(talk|speak) (to|with)) you|how (do|can) i (contact|reach|get in touch)|your (e-?mail|phone|number|address|availability|calendar)|(are|is) you (available|free)|book (a|an) (call|meeting|appointment))\b/i;
/** Asking what a first call is: its length and price are the owner's Bookings setting, not a page's words. */
export const askingAboutTheFirstCall =
  /\b((first|free|intro(ductory)?|initial|discovery) (call|consultation|meeting)s?\b|(is|are) (a |the |your )?calls? free\b|how long (is|are) (a |the |your )?calls?( with you)?\s*\??\s*$)/i;
/** A question that leans on the one before: "and for silk?", "what about diesel?" */
export const leaning = /^\s*(and|or|also|but|then|so|what about|how about|what of|same for)\b/i;
/** A question put to the engineer ("Do you calibrate engines?")... */
export const toYou = /\byou(r|rs)?\b/i;
/** ...unless it asks what the engineer has written ("Do you have articles on GPS?"). */
export const askingForWriting =
  /\b(articles?|posts?|blogs?|(write|written|writing) (about|on)|read about)\b/i;
/**
 * "What is X?": the X it names, up to a question it goes on to ("What is a DPF
 * and why does it clog?" names a DPF)...
 */
const askingWhatIs =
  /^\s*what(?:\s+is|\s+are|['’]s)\s+(.+?)(?:\s+and\s+(?:why|how|what|where|when|who|which|does|do|is|are|can)\b.*)?[\s?.!]*$/i;
/**
 * ...and "How do I V X?": the V it asks how to do, with what it does it to, up to
 * the first word of where, when or with what ("How long should I boil an egg?": boil
 * an egg; "How do I cook rice without a pressure cooker?": cook rice).
 */
const askingHowTo =
  /^\s*how(?:\s+long|\s+often)?\s+(?:do|can|could|should|would|shall|must)\s+(?:i|we)\s+([\p{L}-]+(?:\s+up\b)?)((?:\s+(?!(?:at|for|in|on|with|without|after|before|to|from|of|when|while|so|and|or|but|by|into|than|like|if|as|about|over|under|between|during|through)\b)[\p{L}\p{N}-]+)*)/iu;
/**
 * ...and "How does X work?", which asks for X explained ("How do magnets work?": magnets);
 * "How do I resolve a quarrel at work?" asks how to do a thing at work.
 */
const askingHowItWorks =
  /^\s*how\s+(?:does|do|did|can|could)\s+(?!(?:i|we|you)\b)(.+?)\s+work[\s?.!]*$/i;
/** ...and what it asks to do without ("How do I cook rice without a pressure cooker?"). */
const askingWithout = /\bwithout\s+([^?.!,;]+)/i;
/** ...and the reader's own thing a question asks about ("Why does my phone get hot?": a phone). */
const askingOfTheirs = /\b(?:my|our)\s+([\p{L}-]+)/iu;

/** ...and what "Why does X…?" asks about: its first word ("Why does ice make roads slippery?": ice). */
const askingWhyOf =
  /^\s*why\s+(?:does|do)\s+(?:(?:a|an|the)\s+)?(?!(?:my|our|your)\b)([\p{L}\p{N}-]+)/iu;

/**
 * ...and the names it capitalises, past the first word of a sentence ("Can you run
 * the sessions in Japanese?": Japanese; "I" is no name), where it writes some word in
 * lower case ("HOW DOES A STARTER WORK?" and "How Does A Starter Work?" name nothing).
 * A word with a digit is a code, not a name: "Why does my cooker show E4 and whistle?"
 * asks about the whistle, whether or not the site knows the code.
 */
const askingByName = /(?<![.!?]\s*|^\s*|[\p{L}\p{N}])(?!I\b)\p{Lu}[\p{L}&-]*(?![\p{L}\p{N}&-])/gu;

/**
 * What a question names of its subject, each as its words (`wordsOf`): what it asks
 * what is, or how to do (`named`), the thing of either (`thing`: X of "What is X?" and
 * of "How do I V X?"), the reader's own thing (`owned`), what it asks how it works
 * (`working`), what it asks to do without (`lacking`), what "Why does X…?" asks
 * about (`why`) and the names it capitalises (`names`).
 */
export function shapeOf(question: string) {
  const whatIs = askingWhatIs.exec(question);
  const howTo = whatIs ? null : askingHowTo.exec(question);
  const words = (part: string | undefined) => wordsOf(part ?? "");
  return {
    named: words(whatIs?.[1] ?? (howTo ? `${howTo[1]}${howTo[2]}` : undefined)),
    thing: words(whatIs?.[1] ?? howTo?.[2]),
    owned: words(askingOfTheirs.exec(question)?.[1]),
    working: words(askingHowItWorks.exec(question)?.[1]),
    lacking: words(askingWithout.exec(question)?.[1]),
    why: words(askingWhyOf.exec(question)?.[1]),
    names: words(/\s\p{Ll}/u.test(question) ? question.match(askingByName)?.join(" ") : ""),
  };
}
