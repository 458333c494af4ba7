import { createSpamModel, featuresOf, type Label, type ModelFile } from "./model.ts";

/**
 * Training the spam classifier from labelled texts
 * (docs/decisions/025-spam-that-learns.md). The build trains it once into a
 * file (scripts/spam-model.ts); `npm run spam:eval` trains it on part of the
 * corpus to judge it on the rest.
 */

export type Example = { text: string; label: Label; weight?: number; public?: boolean };

/**
 * Scores at or above which a comment is held, and stored as spam. Chosen with
 * `npm run spam:eval` so that readers are almost never held: a held comment
 * waits for the owner, a false spam is lost to them unless they look.
 */
const thresholds = { hold: 0.6, spam: 0.9 };

/** Features seen in fewer comments than this, all labels and weights together, are dropped. */
const minimumWeight = 1;

export function train(examples: readonly Example[]): ModelFile {
  const model = createSpamModel({
    version: 1,
    docs: [0, 0],
    features: {},
    thresholds,
    trainedOn: { spam: 0, ham: 0, publicSpam: 0, publicHam: 0 },
  });
  const trainedOn = { spam: 0, ham: 0, publicSpam: 0, publicHam: 0 };
  const ordered = [...examples.filter((e) => !e.public), ...examples.filter((e) => e.public)];
  let ownFeatures: Set<string> | null = null;
  for (const example of ordered) {
    let features = featuresOf(example.text);
    if (example.public) {
      // Mails are not comments: their words count only where our comments say
      // nothing, and only as whole words (docs/decisions/025-spam-that-learns.md).
      ownFeatures ??= new Set(Object.keys(model.toFile().features));
      const own = ownFeatures;
      features = features.filter((feature) => feature.startsWith("w:") && !own.has(feature));
      model.learnFeatures(features, example.label, example.weight ?? 1);
    } else model.learn(features, example.label, example.weight ?? 1);
    const spam = example.label === "spam";
    trainedOn[example.public ? (spam ? "publicSpam" : "publicHam") : example.label]++;
  }
  const file = model.toFile();
  const features: ModelFile["features"] = {};
  for (const [feature, [spam, ham]] of Object.entries(file.features)) {
    // Rounded: the file is a third of the size, and the scores do not change.
    if (spam + ham >= minimumWeight) {
      features[feature] = [Math.round(spam * 100) / 100, Math.round(ham * 100) / 100];
    }
  }
  return { ...file, features, trainedOn };
}
