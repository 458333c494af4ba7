/**
 * Comments the spam defences are judged by, with the default settings
 * (docs/moderation.md, "Spam defences"): every kind of junk here must leave nothing for
 * other readers to see, and every ordinary comment must be published at once.
 * The browser test posts them through the real form; the server tests through
 * the API.
 */

/** Junk, one of each kind seen in comment spam. */
export const junkComments: { kind: string; text: string }[] = [
  {
    kind: "link farm",
    text: "Great post! http://cheap-deals.example/a http://cheap-deals.example/b https://best-offers.example/c http://more-offers.example/d",
  },
  { kind: "URL shortener", text: "Really useful, more on this here: bit.ly/3xYzAbQ" },
  { kind: "another shortener", text: "Full guide -> https://tinyurl.com/yc7kq2ab" },
  {
    kind: "BBCode link",
    text: "Nice article [url=http://pills-shop.example]buy medicines[/url] thanks",
  },
  { kind: "HTML link", text: 'Thanks for sharing <a href="http://promo.example">great offers</a>' },
  {
    kind: "Markdown link",
    text: "Good read. You might like [this amazing resource](http://resource-hub.example/start)",
  },
  {
    kind: "Punycode look-alike domain",
    text: "Verify your account at https://xn--pypal-4ve.com/login",
  },
  {
    kind: "Cyrillic look-alike domain",
    text: "Your package is waiting, confirm at pаypal.com/secure today",
  },
  {
    kind: "digits for letters in a domain",
    text: "Claim your free reward at g00gle-rewards.com/claim",
  },
  {
    kind: "brand inside another domain",
    text: "Account locked. Unlock at amazon.com-security-check.net now",
  },
  {
    kind: "phone scam with international number",
    text: "Having trouble? Our support team answers 24/7 on +1 (888) 555-0199",
  },
  { kind: "phone number in groups", text: "Helpdesk for refunds: 1-800-555-0142, ask for Mike" },
  {
    kind: "phone number after a contact word",
    text: "Genuine agent, call 9876543210 for instant approval",
  },
  {
    kind: "keyword stuffing",
    text: "seo seo services best seo company seo expert cheap seo agency seo ranking seo tools seo",
  },
  { kind: "hashtag stuffing", text: "#engineering #money #crypto #forex #trading #profit #rich" },
  {
    kind: "crypto investment scam",
    text: "I made 4 BTC in a month with this crypto investment platform, guaranteed returns!",
  },
  {
    kind: "crypto recovery scam",
    text: "I lost my savings to fake brokers until a recovery expert helped me get it all back",
  },
  {
    kind: "online casino",
    text: "Play at the best online casino tonight, free spins for new players",
  },
  { kind: "pharmacy", text: "Order viagra and cialis without prescription, discreet delivery" },
  {
    kind: "look-alike letters in words",
    text: "Cheap v1agra and c1alis, 80% off, no questions asked",
  },
  { kind: "spelled-out letters", text: "Win big at our c a s i n o, sign up today" },
  { kind: "email bait", text: "Serious investors only, write to richard.wealth88@mailbox.example" },
  {
    kind: "payday loan",
    text: "Need cash fast? Instant loan approval in 5 minutes, no credit check",
  },
  { kind: "backlink seller", text: "We sell high authority backlinks for your website, DA 90+" },
  {
    kind: "essay mill",
    text: "Students! Our essay writing service finishes your assignment overnight",
  },
  { kind: "fake followers", text: "Buy instagram followers and likes, real and cheap" },
  { kind: "adult bait", text: "Hot singles in your area are waiting for you tonight" },
  {
    kind: "spell caster",
    text: "Dr. Okuta is a powerful spell caster, he brought my ex lover back in 2 days",
  },
  { kind: "obfuscated domain", text: "Best prices on watches, visit luxurywatches dot xyz" },
  { kind: "spam top-level domain", text: "Awesome blog, also see www.super-deals.top for more" },
  { kind: "prize scam", text: "Congratulations you have been selected, claim your prize now" },
  {
    kind: "work-from-home scam",
    text: "Earn money online from your phone, work from home 2 hours a day",
  },
  { kind: "forex signals", text: "Join our forex trading signals group, 300% profit weekly" },
  { kind: "messenger bait", text: "For the full course DM me or telegram me @quickrich_bot" },
];

/** What readers write: questions, thanks, other scripts, emoji, numbers and units, a reference. */
export const ordinaryComments: string[] = [
  "Great explanation, thank you!",
  "Why does the pressure cooker whistle at around 1 bar above atmospheric pressure?",
  "My induction cooktop draws about 2 kW; does the pan material matter much?",
  "बहुत बढ़िया लेख, धन्यवाद!",
  "😊👍 Loved this one",
  "The cricket ball swings more when one side is polished — is it the boundary layer?",
  "Our boiler runs at 3.5 bar and 180°C; does the same rule apply?",
  "There is more on the subject on Wikipedia: https://en.wikipedia.org/wiki/Differential_(mechanical_device)",
  "How many satellites does a GPS receiver need for a 3D fix? I read 4.",
  "Soap molecules have a hydrophilic head and a hydrophobic tail, right?",
  "I tried ironing silk at 130 °C and it worked perfectly.",
  "Could you write about hydrogen fuel cells next? Thanks!",
  "Wi-Fi at 2.4 GHz vs 5 GHz — which goes through walls better?",
  "मुझे यह समझ नहीं आया कि स्टार्टर मोटर कैसे काम करता है।",
  "Thanks for sharing! My son (12) asked me this exact question yesterday.",
  "The starter motor on my 1998 car draws 150 A when cranking.",
  "Is 5 kW enough for a small EV charger at home?",
  "Interesting! 🚗⚡ I never knew the differential let the wheels turn at different speeds.",
  "Question: why does tea cool faster in a steel cup than in a ceramic one?",
  "Nice one. Could you add a diagram of the gear train?",
  "Does a 10% rise in pressure raise the boiling point by only 2–3 °C?",
  "I shared this on WhatsApp with my class and they loved it.",
  "Excellent write-up. I'm a mechanical engineering student from Pune.",
  "Does the cooker reach 120°C at 15 psi? That's roughly 1 bar gauge.",
  "Great read!!! 👏👏👏",
  "Muy interesante, gracias por compartir.",
  "Can you recommend a good book on IC engines for beginners?",
  "The answer is 42 😄 — just kidding, great article.",
  "I disagree slightly: soap doesn't 'kill' germs, it lifts them off so water can rinse them away.",
  "Thanks! Bookmarking this for my thermodynamics exam on 12/03.",
  "Call me old-fashioned, but I still iron cotton at 200 °C with steam.",
  "I bet the GPS error at my place is under 5 m, the phone says ±3 m.",
  // Short professional sentences with their trade's words: one of these was once held.
  "As a DFMEA facilitator I agree that severity ratings get inflated in reviews.",
  "We run PFMEA reviews quarterly and the RPN numbers creep up every time.",
  "As a welding inspector I agree that most porosity starts with damp flux.",
];
