/**
 * The assistant's evaluation set (`npm run assistant:eval`, docs/product.md,
 * "Chat with Me"): questions a reader might type, each with the page that
 * answers it (a service by `/services/<id>`, wherever its page is), and
 * questions the site cannot answer, which the assistant must decline. They
 * name pages, never sentences, so they survive a rewrite of the wording.
 */

export type Answerable = { question: string; page: string; previous?: string };

export const answerable: Answerable[] = [
  // Science in Everyday
  { question: "Why does an iron remove wrinkles from a shirt?", page: "/science/ironing" },
  { question: "What temperature should I iron cotton at?", page: "/science/ironing" },
  {
    question: "and for silk?",
    previous: "What temperature should I iron cotton at?",
    page: "/science/ironing",
  },
  { question: "Why does steam help when ironing clothes?", page: "/science/ironing" },
  { question: "Why does a pressure cooker cook food faster?", page: "/science/pressure-cooker" },
  { question: "Why does the pressure cooker whistle?", page: "/science/pressure-cooker" },
  {
    question: "What is the boiling point of water inside a pressure cooker?",
    page: "/science/pressure-cooker",
  },
  { question: "Why does tea cool faster in a saucer?", page: "/science/tea-cooling" },
  { question: "Does blowing on hot tea really cool it?", page: "/science/tea-cooling" },
  { question: "What is Newton's law of cooling?", page: "/science/tea-cooling" },
  { question: "How does a cricket ball swing in the air?", page: "/science/cricket-ball" },
  { question: "What is reverse swing in cricket?", page: "/science/cricket-ball" },
  { question: "How does GPS work out where my phone is?", page: "/science/gps-navigation" },
  {
    question: "Why does GPS need a fourth satellite for trilateration?",
    page: "/science/gps-navigation",
  },
  { question: "Does relativity matter for satellite navigation?", page: "/science/gps-navigation" },
  { question: "How does soap remove grease from hands?", page: "/science/soap" },
  { question: "What are micelles?", page: "/science/soap" },
  { question: "How does Wi-Fi send data through the air?", page: "/science/wifi" },
  { question: "What frequency bands does wifi use?", page: "/science/wifi" },
  { question: "Why do walls weaken my router's signal?", page: "/science/wifi" },
  { question: "How does a car differential work?", page: "/science/differential-gear" },
  { question: "What is a limited slip differential?", page: "/science/differential-gear" },
  {
    question: "Why do the wheels turn at different speeds around a corner?",
    page: "/science/differential-gear",
  },
  { question: "How does a starter motor crank the engine?", page: "/science/starter-motor" },
  { question: "What does the starter solenoid do?", page: "/science/starter-motor" },

  // Technical
  {
    question: "How does the four-stroke cycle of an engine work?",
    page: "/technical/ice-blog",
  },
  {
    question: "What is the difference between a petrol and a diesel engine?",
    page: "/technical/ice-blog",
  },
  { question: "Where does the energy of the fuel go in an engine?", page: "/technical/ice-blog" },
  { question: "What is engine knock?", page: "/technical/ice-blog" },
  { question: "What is pumping loss?", page: "/technical/ice-blog" },
  {
    question: "Why use a common rail for diesel injection?",
    page: "/technical/fuel-injection-blog",
  },
  {
    question: "How high is the injection pressure in a common-rail system?",
    page: "/technical/fuel-injection-blog",
  },
  {
    question: "Why do modern diesel injectors make multiple injections per cycle?",
    page: "/technical/fuel-injection-blog",
  },
  {
    question: "How does a piezo injector work inside?",
    page: "/technical/fuel-injection-blog",
  },
  { question: "What does exhaust gas recirculation do?", page: "/technical/emissions-blog" },
  { question: "What is a DPF?", page: "/technical/emissions-blog" },
  { question: "How does SCR with AdBlue reduce NOx?", page: "/technical/emissions-blog" },
  { question: "What do the BS-VI emission norms demand?", page: "/technical/emissions-blog" },
  {
    question: "Why are diesels harder to clean up than petrol engines?",
    page: "/technical/emissions-blog",
  },
  { question: "What are the main components of an EV?", page: "/technical/ev-intro" },
  { question: "Why are electric vehicles so efficient?", page: "/technical/ev-intro" },
  { question: "What are the real challenges for EVs?", page: "/technical/ev-intro" },
  { question: "How does a PEM fuel cell work?", page: "/technical/fuel-cell-vehicles" },
  {
    question: "What is the balance of plant in a fuel cell vehicle?",
    page: "/technical/fuel-cell-vehicles",
  },
  {
    question: "How is hydrogen stored in an FC vehicle?",
    page: "/technical/fuel-cell-vehicles",
  },
  {
    question: "Where do fuel cells make more sense than batteries?",
    page: "/technical/fuel-cell-vehicles",
  },

  // MechFusionAI
  {
    question: "What is a physics-informed neural network?",
    page: "/mechfusion-ai/pde-and-ai",
  },
  {
    question: "Can AI solve partial differential equations?",
    page: "/mechfusion-ai/pde-and-ai",
  },
  { question: "What are neural operators?", page: "/mechfusion-ai/pde-and-ai" },
  {
    question: "How does generative design actually work?",
    page: "/mechfusion-ai/ai-and-creativity",
  },
  {
    question: "Is AI creative in engineering design?",
    page: "/mechfusion-ai/ai-and-creativity",
  },
  {
    question: "Where does generative AI save a mechanical engineer time?",
    page: "/mechfusion-ai/generative-ai-for-mechanical-engineers",
  },
  {
    question: "Where do LLMs fail for engineers?",
    page: "/mechfusion-ai/generative-ai-for-mechanical-engineers",
  },
  {
    question: "What rules do you follow when using ChatGPT for engineering work?",
    page: "/mechfusion-ai/generative-ai-for-mechanical-engineers",
  },

  // Mythological Inspirations
  { question: "Who was Garuda?", page: "/mythology/garuda" },
  { question: "How did Garuda fetch the amrita?", page: "/mythology/garuda" },
  { question: "Why did Rama go into exile?", page: "/mythology/rama-duty" },
  { question: "What did Kaikeyi ask Dasharatha for?", page: "/mythology/rama-duty" },
  { question: "How did Bharata rule in Rama's name?", page: "/mythology/bharata-righteousness" },
  {
    question: "Why did Bharata place Rama's sandals on the throne?",
    page: "/mythology/bharata-righteousness",
  },
  { question: "How did Nala lose his kingdom?", page: "/mythology/nala-damayanti" },
  { question: "Who was Damayanti?", page: "/mythology/nala-damayanti" },
  {
    question: "What happened to the sixty thousand sons of Sagara?",
    page: "/mythology/sagaras-haste",
  },
  { question: "Who was the sage Kapila?", page: "/mythology/sagaras-haste" },
  { question: "How did Sita stay steadfast in the Ashoka grove?", page: "/mythology/sita-faith" },
  { question: "What did Hanuman find in Lanka?", page: "/mythology/sita-faith" },

  // Non Technical
  { question: "How should an engineer plan a career?", page: "/non-technical/career-planning" },
  { question: "How do I resolve a quarrel at work?", page: "/non-technical/workplace-harmony" },
  {
    question: "What does a CAE engineer do compared with a test engineer?",
    page: "/non-technical/professional-roles",
  },
  {
    question: "How do I write a clear report for managers?",
    page: "/non-technical/communication",
  },
  {
    question: "How do you approach a hard engineering problem step by step?",
    page: "/non-technical/problem-solving",
  },
  { question: "What makes teamwork work between departments?", page: "/non-technical/teamwork" },
  {
    question: "How do I adapt when a project changes weeks before launch?",
    page: "/non-technical/adaptability",
  },
  { question: "How can I manage my time better?", page: "/non-technical/time-management" },
  {
    question: "What questions should I ask of a result that looks too good?",
    page: "/non-technical/critical-thinking",
  },
  {
    question: "Why does emotional intelligence matter in meetings?",
    page: "/non-technical/emotional-intelligence",
  },
  {
    question: "How do small details cause big failures?",
    page: "/non-technical/attention-to-details",
  },
  {
    question: "How does a leader handle a bad week with the team?",
    page: "/non-technical/leadership",
  },
  { question: "How do I take the initiative on an idea?", page: "/non-technical/initiation" },

  // About, home and the section introductions
  { question: "Who writes this site?", page: "/about" },
  { question: "What is your background in emissions?", page: "/about" },
  { question: "Why did you start this website?", page: "/about" },
  { question: "What is MechFusionAI?", page: "/mechfusion-ai" },

  // Services
  { question: "Can you review our tolerance stack-up?", page: "/services/tolerance-stackups" },
  { question: "Do you do Monte Carlo tolerance analysis?", page: "/services/tolerance-stackups" },
  { question: "Can you run a DFMEA for our product?", page: "/services/dfmea" },
  { question: "Do you offer design FMEA facilitation?", page: "/services/dfmea" },
  { question: "Can you build a chatbot for our website?", page: "/services/chatbots" },
  { question: "Can you build us a voicebot for our call centre?", page: "/services/voicebots" },
  {
    question: "Do you offer training for our engineering team?",
    page: "/services/technical-training",
  },
  { question: "Can you automate our Excel reports with VBA?", page: "/services/vba-tools" },
  {
    question: "Can you help with our EV battery pack project?",
    page: "/services/ev-fuel-cell-projects",
  },
  {
    question: "Can you help us with an IC engine calibration project?",
    page: "/services/ic-engine-projects",
  },
  {
    question: "Do you offer mechanical design services with CAD?",
    page: "/services/mechanical-design",
  },
];

/** Questions the site cannot answer: each must be declined. */
export const unanswerable: string[] = [
  "What is the capital of Australia?",
  "Who won the football world cup in 2018?",
  "What is the best recipe for chocolate cake?",
  "How do I file my income tax return?",
  "What will the weather be tomorrow in Mumbai?",
  "Which stocks should I buy this year?",
  "How do I repair a leaking roof?",
  "What is the plot of Hamlet?",
  "How many moons does Jupiter have?",
  "How do I learn to play the guitar?",
  "What is the price of bitcoin today?",
  "Who is the prime minister of Canada?",
  "How do I train my puppy to sit?",
  "What is the best smartphone to buy?",
  "Translate good morning into Japanese",
  "How do vaccines work in the immune system?",
  "Which football club has won the most titles?",
  "What's a good holiday destination in Europe?",
  "How do I bake sourdough bread?",
  "What is the speed of light in glass?",
  "Recommend a good science fiction novel",
  "How do I knit a scarf?",
];
