/**
 * A second list of comments for the spam filter at the default settings
 * (docs/moderation.md, "The spam filter"; docs/decisions/025-spam-that-learns.md): junk of
 * the kinds the fixed rules alone let through, and ordinary readers' comments.
 * None of them is in the corpus the classifier learns from
 * (server/moderation/corpus/), which a unit test checks, so the browser test
 * that posts them judges the filter on words it never saw.
 */

/** Junk, by kind: none of it may be left for other readers to see. */
export const unseenJunk: { kind: string; text: string }[] = [
  {
    kind: "one-link promotion",
    text: "Loved the part about clutches. Our workshop sells clutch plates for every bike model: https://clutchking-parts.store/catalogue",
  },
  {
    kind: "one-link promotion",
    text: "For affordable home interiors in Hyderabad, see what our designers did at urbannest-interiors.in/gallery",
  },
  {
    kind: "one-link promotion",
    text: "If you are planning a wedding, our photographers cover all of Kerala, packages at www.shaadilens-studio.com",
  },
  {
    kind: "one-link promotion",
    text: "We repair AC units on the same day anywhere in Chennai, book a technician: https://coolfix-chennai.site/book",
  },
  {
    kind: "one-link promotion",
    text: "The best coaching for JEE and NEET in Kota, hostel included, admissions open at topranker-academy.online",
  },
  {
    kind: "one-link promotion",
    text: "Nice read. Our modular kitchens come with a ten year warranty, visit kitchencraft-modular.shop today.",
  },
  {
    kind: "scam in small capitals",
    text: "ᴅᴏᴜʙʟᴇ ʏᴏᴜʀ ꜱᴀʟᴀʀʏ ᴡɪᴛʜ ᴏᴜʀ ᴛʀᴀᴅɪɴɢ ꜱɪɢɴᴀʟꜱ, ᴊᴏɪɴ ᴛʜᴇ ᴠɪᴘ ɢʀᴏᴜᴘ ɴᴏᴡ",
  },
  {
    kind: "scam in small capitals",
    text: "ʏᴏᴜ ʜᴀᴠᴇ ᴡᴏɴ ᴀɴ ɪᴘʜᴏɴᴇ, ᴄʟᴀɪᴍ ɪᴛ ʙʏ ᴘᴀʏɪɴɢ ᴛʜᴇ ᴅᴇʟɪᴠᴇʀʏ ᴄʜᴀʀɢᴇ ᴛᴏᴅᴀʏ",
  },
  {
    kind: "scam in small capitals",
    text: "ɢᴜᴀʀᴀɴᴛᴇᴇᴅ ᴅᴀɪʟʏ ᴘʀᴏꜰɪᴛ ꜰʀᴏᴍ ᴄʀʏᴘᴛᴏ, ᴍᴇꜱꜱᴀɢᴇ ᴍʏ ᴀᴄᴄᴏᴜɴᴛ ᴍᴀɴᴀɢᴇʀ",
  },
  {
    kind: "get rich with one link",
    text: "I went from zero to ₹3 lakh a month in ninety days, the whole system is here: richmindset-daily.club",
  },
  {
    kind: "get rich with one link",
    text: "Stop working for others. Quit your job in six months with this plan: https://freedomplan-now.life/start",
  },
  {
    kind: "get rich with one link",
    text: "Students are making $200 a day from their phones, see how at cashstudent.fun",
  },
  {
    kind: "promotion in Cyrillic",
    text: "Натяжные потолки под ключ за один день, скидка 30% до конца месяца, звоните.",
  },
  {
    kind: "promotion in Cyrillic",
    text: "Лучший интернет-магазин электроники, доставка за 2 часа, заходите на techmarket-sale.ru",
  },
  {
    kind: "promotion in Cyrillic",
    text: "Раскрутка сайта в топ Яндекса недорого, гарантия результата, пишите нам.",
  },
  {
    kind: "hire a hacker",
    text: "Do you suspect your partner? I hire out as a hacker and can read any chat remotely, discreet results.",
  },
  {
    kind: "hire a hacker",
    text: "Lost access to your Facebook? Our hacking team restores any account and removes bad posts, contact us.",
  },
  {
    kind: "hire a hacker",
    text: "Need your exam marks changed in the university portal? Experienced hackers for hire, pay after the job.",
  },
  {
    kind: "replica not on the list",
    text: "Mirror-quality copies of Cartier bracelets, same weight and stamp as the boutique, shipped in a gift box.",
  },
  {
    kind: "replica not on the list",
    text: "First copy Nike and Adidas shoes at wholesale prices, same box and tags, cash on delivery all over India.",
  },
  {
    kind: "replica not on the list",
    text: "Super clone Hublot watches, nobody can tell the difference, order by message for the catalogue.",
  },
  {
    kind: "two links to one download site",
    text: "Full movie in HD: https://moviezone-hd.xyz/watch/kalki and the Hindi dubbed one at https://moviezone-hd.xyz/dub/kalki",
  },
  {
    kind: "two links to one download site",
    text: "Free PDF of every engineering textbook: apkbooks-free.top/download/mech and apkbooks-free.top/download/civil",
  },
  { kind: "spelled out, run into more letters", text: "v i a g r a n o w" },
  { kind: "spelled out, run into more letters", text: "c a s i n o b o n u s" },
  {
    kind: "spelled out, run into more letters",
    text: "e a r n m o n e y f a s t from home, ask me",
  },
  {
    kind: "obfuscated contact",
    text: "For bulk orders of solar inverters write to salesdesk [at] sunvolt-traders [dot] com",
  },
  {
    kind: "obfuscated contact",
    text: "Cheapest personal loans, ping me on whatsapp: nine one nine three four five two eight zero six seven",
  },
  {
    kind: "obfuscated contact",
    text: "Daily stock market calls with 90% accuracy, Telegram: tradewithrohan_official",
  },
  {
    kind: "obfuscated contact",
    text: "Best packers and movers in Pune, see quickshift dot in for a free quote.",
  },
];

/** Ordinary readers' comments: every one is published at once. */
export const unseenOrdinary: string[] = [
  "Why does a heat pump get less efficient as it gets colder outside? Is it only the temperature difference?",
  "I teach class nine physics and will use your example of the lift to explain apparent weight.",
  "The bit about the Chola bronze casting was new to me. How did they keep the wax from melting in the heat?",
  "How much does a wind turbine blade flex in a storm? They look so stiff from the ground.",
  "My scooter's front brake feels spongy after the service. Could there be air in the line?",
  "Could you explain why concrete needs curing with water for days? Our builder keeps skipping it.",
  "In the Mahabharata, how long did the war at Kurukshetra actually last? I have read both 18 days and more.",
  "I always wondered why aircraft windows are round. The part about stress around corners finally explained it.",
  "Which is better for a small workshop, a single phase or a three phase motor for the bench grinder?",
  "Great read on tides. Does the sun's pull matter much, or is it mostly the moon?",
  "My daughter asked why ice floats and I could not answer well, your water molecule picture helped.",
  "Why do train wheels have a cone shape? I noticed it at the station last week.",
  "Is it true that the Konark temple was designed as a giant sundial? The wheels seem too precise to be decoration.",
  "The explanation of resonance was clear. Is that also why soldiers break step on a bridge?",
  "How do they drill tunnels under rivers without the water coming in? The metro in Kolkata did it.",
  "I am an electrician and the section on earthing is spot on, most houses here have it done badly.",
  "There is a good article on this on Wikipedia too: https://en.wikipedia.org/wiki/Tuned_mass_damper",
  "Do bigger tyres really reduce mileage, or is it just the speedometer reading wrong?",
  "Hanuman carrying the mountain always puzzled me as a child, I like how you connected it to the herbs of the Himalaya.",
  "How hot does the inside of a pressure cooker get at full whistle? More than 100 degrees?",
  "My grandfather built wells in our village without any machines. The part on groundwater made me think of him.",
  "Why do LED bulbs still get warm if they are so efficient?",
  "Yeh padh kar samajh aaya ki cycle ke gear kyon badalte hain, bachpan se sochta tha.",
  "बहुत अच्छा लेख है, ट्रांसफार्मर के बारे में इतनी आसान भाषा में पहली बार पढ़ा।",
  "ராமாயணத்தில் சேது பாலம் பற்றிய பகுதி மிகவும் சுவாரஸ்யமாக இருந்தது.",
  "Muy buena explicación de los engranajes, mi hijo por fin entendió la relación de transmisión.",
  "Could you do a piece on how satellites stay in orbit without falling? My students keep asking.",
  "I measured the resistance of my kettle's element and it matches your calculation within a few ohms.",
  "What makes stainless steel stainless? Our kitchen sink has small rust spots anyway.",
  "The story of Vishwakarma as the engineer of the gods is lovely, is there a temple dedicated to him?",
];
