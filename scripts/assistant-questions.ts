import type { AssistantIndex, Finding } from "../server/assistant/retrieval.ts";
import { unanswerable } from "./assistant-questions-declined.ts";

/**
 * The assistant's evaluation set (`npm run assistant:eval`, docs/product.md,
 * "Chat with Me"): questions a reader might type, each with the page that
 * answers it (a service by `/services/<id>`, wherever its page is), and
 * questions the site cannot answer, which the assistant must decline
 * (assistant-questions-declined.ts). They
 * name pages, never sentences, so they survive a rewrite of the wording.
 * scripts/assistant-questions.test.ts asks each: it must be answered from its
 * page first, or declined, as listed here, but for the known misses below.
 */

type Answerable = { question: string; page: string; previous?: string };

/** Each page, with the questions it answers; a follow-up names the question it follows. */
const questionsByPage: Record<string, (string | { question: string; previous: string })[]> = {
  // Science in Everyday
  "/science/ironing": [
    "Why does an iron remove wrinkles from a shirt?",
    "What temperature should I iron cotton at?",
    { question: "and for silk?", previous: "What temperature should I iron cotton at?" },
    "Why does steam help when ironing clothes?",
    "What temperature should I iron polyester at?",
    "What do the dots on a clothes care label mean?",
    "Why does a hot iron leave a shiny patch on polyester?",
  ],
  "/science/pressure-cooker": [
    "Why does a pressure cooker cook food faster?",
    "Why does the pressure cooker whistle?",
    "What is the boiling point of water inside a pressure cooker?",
    "Why does dal take longer to cook in the mountains?",
    "What does the safety valve on a pressure cooker do?",
    "How heavy is the weight on a pressure cooker whistle?",
    "How does a pressure cooker work?",
    "Why does my pressure cooker whistle?",
    "Why does my pressure cooker show E4 and whistle so often?",
  ],
  "/science/tea-cooling": [
    "Why does tea cool faster in a saucer?",
    "Does blowing on hot tea really cool it?",
    "What is Newton's law of cooling?",
    "Why do radiator fins matter for cooling?",
    "How do I cool tea without a saucer?",
  ],
  "/science/cricket-ball": [
    "How does a cricket ball swing in the air?",
    "What is reverse swing in cricket?",
    "What is the boundary layer on a cricket ball?",
    "Does humidity help a cricket ball swing?",
    "Why do bowlers keep one side of the ball shiny?",
    "Why do golf balls have dimples?",
    "How does reverse swing work?",
  ],
  "/science/gps-navigation": [
    "How does GPS work out where my phone is?",
    "Why does GPS need a fourth satellite for trilateration?",
    "Does relativity matter for satellite navigation?",
    "How accurate is GPS?",
    "How many satellites does GPS need?",
    "Why do GPS satellite clocks run fast?",
    "Why is my GPS position wrong between tall buildings?",
  ],
  "/science/soap": ["How does soap remove grease from hands?", "What are micelles?"],
  "/science/wifi": [
    "How does Wi-Fi send data through the air?",
    "What frequency bands does wifi use?",
    "Why do walls weaken my router's signal?",
    "Why does 2.4 GHz wifi reach further than 5 GHz?",
    "What is QAM?",
    "How does OFDM work?",
    "What does a Wi-Fi router do?",
  ],
  "/science/differential-gear": [
    "How does a car differential work?",
    "What is a limited slip differential?",
    "Why do the wheels turn at different speeds around a corner?",
    "Who invented the differential?",
    "What happens when one wheel is on ice?",
    "Why does a car get stuck when one wheel is on ice?",
    "When was the differential invented?",
    "Why does a wheel spin in mud?",
  ],
  "/science/starter-motor": [
    "How does a starter motor crank the engine?",
    "What does the starter solenoid do?",
    "How much current does a starter motor draw?",
    "Who invented the electric self-starter?",
    "Why should I not crank the engine for more than ten seconds?",
    "How does a starter motor work?",
    "How does a DC motor work?",
    "How does a Bendix drive work?",
    "How Does A Starter Motor Crank The Engine?",
  ],

  // Technical
  "/technical/ice-blog": [
    "How does the four-stroke cycle of an engine work?",
    "What is the difference between a petrol and a diesel engine?",
    "Where does the energy of the fuel go in an engine?",
    "What is engine knock?",
    "What is pumping loss?",
    "What is brake specific fuel consumption?",
    "What compression ratio does a diesel engine use?",
    "How efficient is a diesel engine?",
    "What is the efficiency of an ICE?",
  ],
  "/technical/fuel-injection-blog": [
    "Why use a common rail for diesel injection?",
    "How high is the injection pressure in a common-rail system?",
    "Why do modern diesel injectors make multiple injections per cycle?",
    "How does a piezo injector work inside?",
    "How many holes does a diesel injector nozzle have?",
    "Why does dirt damage common rail injectors?",
    "What is a pilot injection?",
  ],
  "/technical/emissions-blog": [
    "What does exhaust gas recirculation do?",
    "What is a DPF?",
    "How does SCR with AdBlue reduce NOx?",
    "What do the BS-VI emission norms demand?",
    "Why are diesels harder to clean up than petrol engines?",
    "Why does my car need AdBlue?",
    "What is a three-way catalyst?",
    "What is the NOx limit under BS-VI?",
    "Why does urea form deposits in the exhaust?",
    "What is a DPF and why does it clog?",
    "How does a DPF regenerate?",
    "Why do DPFs clog?",
  ],
  "/technical/ev-intro": [
    "What are the main components of an EV?",
    "Why are electric vehicles so efficient?",
    "What are the real challenges for EVs?",
    "How far can an electric car go on a 40 kWh battery?",
    "What temperature do lithium-ion cells prefer?",
    "How much energy does a battery pack hold per kg compared with diesel?",
  ],
  "/technical/fuel-cell-vehicles": [
    "How does a PEM fuel cell work?",
    "What is the balance of plant in a fuel cell vehicle?",
    "How is hydrogen stored in an FC vehicle?",
    "Where do fuel cells make more sense than batteries?",
    "Is hydrogen safe in a car?",
    "How long does it take to refuel a hydrogen car?",
    "What pressure is hydrogen stored at in a car?",
    "What voltage does a single fuel cell make?",
  ],

  // MechFusionAI
  "/mechfusion-ai/pde-and-ai": [
    "What is a physics-informed neural network?",
    "Can AI solve partial differential equations?",
    "What are neural operators?",
    "What is a PINN?",
    "What is a surrogate model?",
  ],
  "/mechfusion-ai/ai-and-creativity": [
    "How does generative design actually work?",
    "Is AI creative in engineering design?",
    "What is topology optimisation?",
  ],
  "/mechfusion-ai/generative-ai-for-mechanical-engineers": [
    "Where does generative AI save a mechanical engineer time?",
    "Where do LLMs fail for engineers?",
    "What rules do you follow when using ChatGPT for engineering work?",
    "Why do language models make up references to standards?",
    "What do language models get wrong about standards?",
  ],

  // Mythological Inspirations
  "/mythology/garuda": [
    "Who was Garuda?",
    "How did Garuda fetch the amrita?",
    "Why did Garuda's mother become a slave?",
  ],
  "/mythology/rama-duty": [
    "Why did Rama go into exile?",
    "What did Kaikeyi ask Dasharatha for?",
    "Who was Kaikeyi?",
  ],
  "/mythology/bharata-righteousness": [
    "How did Bharata rule in Rama's name?",
    "Why did Bharata place Rama's sandals on the throne?",
  ],
  "/mythology/nala-damayanti": [
    "How did Nala lose his kingdom?",
    "Who was Damayanti?",
    "How did Nala win back his kingdom?",
  ],
  "/mythology/sagaras-haste": [
    "What happened to the sixty thousand sons of Sagara?",
    "Who was the sage Kapila?",
  ],
  "/mythology/sita-faith": [
    "How did Sita stay steadfast in the Ashoka grove?",
    "What did Hanuman find in Lanka?",
  ],

  // Non Technical
  "/non-technical/career-planning": [
    "How should an engineer plan a career?",
    "What should a young engineer do in the first three years?",
  ],
  "/non-technical/workplace-harmony": [
    "How do I resolve a quarrel at work?",
    "How do I repair a relationship after an argument with a colleague?",
  ],
  "/non-technical/professional-roles": [
    "What does a CAE engineer do compared with a test engineer?",
    "What does a project engineer do?",
  ],
  "/non-technical/communication": ["How do I write a clear report for managers?"],
  "/non-technical/problem-solving": [
    "How do you approach a hard engineering problem step by step?",
  ],
  "/non-technical/teamwork": ["What makes teamwork work between departments?"],
  "/non-technical/adaptability": ["How do I adapt when a project changes weeks before launch?"],
  "/non-technical/time-management": ["How can I manage my time better?"],
  "/non-technical/critical-thinking": [
    "What questions should I ask of a result that looks too good?",
  ],
  "/non-technical/emotional-intelligence": ["Why does emotional intelligence matter in meetings?"],
  "/non-technical/attention-to-details": ["How do small details cause big failures?"],
  "/non-technical/leadership": ["How does a leader handle a bad week with the team?"],
  "/non-technical/initiation": ["How do I take the initiative on an idea?"],

  // About, home and the section introductions
  "/about": [
    "Who writes this site?",
    "What is your background in emissions?",
    "Why did you start this website?",
    "Who are you?",
    "Where are you based?",
    "What is this site about?",
    "What will I find here?",
  ],
  "/mechfusion-ai": ["What is MechFusionAI?"],

  // Services
  "/services/tolerance-stackups": [
    "Can you review our tolerance stack-up?",
    "Do you do Monte Carlo tolerance analysis?",
    "What is RSS in tolerance analysis?",
    "Do you check GD&T on our drawings?",
  ],
  "/services/dfmea": [
    "Can you run a DFMEA for our product?",
    "Do you offer design FMEA facilitation?",
    { question: "How much does it cost?", previous: "What does the DFMEA service include?" },
    "How much do you charge for a DFMEA workshop?",
    "Do you do PFMEA too?",
  ],
  "/services/chatbots": [
    "Can you build a chatbot for our website?",
    "Will the chatbot make things up?",
  ],
  "/services/voicebots": [
    "Can you build us a voicebot for our call centre?",
    "Can the voicebot speak Tamil?",
  ],
  "/services/technical-training": [
    "Do you offer training for our engineering team?",
    "Can you give a talk at our college?",
    "Can the training be in Hindi?",
  ],
  "/services/vba-tools": [
    "Can you automate our Excel reports with VBA?",
    "Will the VBA tool work on a Mac?",
  ],
  "/services/ev-fuel-cell-projects": ["Can you help with our EV battery pack project?"],
  "/services/ic-engine-projects": [
    "Can you help us with an IC engine calibration project?",
    "Do you calibrate engines?",
  ],
  "/services/mechanical-design": ["Do you offer mechanical design services with CAD?"],
};

export const answerable: Answerable[] = Object.entries(questionsByPage).flatMap(
  ([page, questions]) =>
    questions.map((asked) =>
      typeof asked === "string" ? { question: asked, page } : { ...asked, page },
    ),
);

/**
 * The questions the assistant gets wrong today, each a miss to mend, not a
 * behaviour to keep: the test fails when one is mended, so it leaves this list.
 */
export const knownMisses = new Set([
  // Declined: the page says it in other words.
  "How do I write a clear report for managers?", // the site writes an email
  "How do small details cause big failures?", // the page never says "cause" or "failure"
]);

/** A question of the set as asked: the page it wants (null: none, it must be declined) and the pages of the answer. */
export type Asked = { question: string; wanted: string | null; pages: string[] };

/** A source's page as the set names it: a service by its id, wherever its page is. */
function pagesOf(finding: Finding): string[] {
  if (!finding.known) return [];
  return finding.sources.map((source, at) => {
    const service = at === 0 ? (finding.service ?? source.service) : source.service;
    return service ? `/services/${service.id}` : source.page;
  });
}

/** Every question of the set asked of `index`. */
export function askAll(index: AssistantIndex): Asked[] {
  return [
    ...answerable.map(({ question, page, previous }) => ({
      question,
      wanted: page,
      pages: pagesOf(index.find(question, previous)),
    })),
    ...unanswerable.map((question) => ({
      question,
      wanted: null,
      pages: pagesOf(index.find(question)),
    })),
  ];
}

/** Answered from its page first, or declined when it wants none. */
export const askedRight = ({ wanted, pages }: Asked) =>
  wanted === null ? pages.length === 0 : pages[0] === wanted;
