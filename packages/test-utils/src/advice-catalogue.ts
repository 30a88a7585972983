/**
 * The rules of an advice module (`@s2sp/core/advice` and each package's own `advice.ts`), checked
 * the same way for every package: each entry ends with a sentence the model can act on, every
 * function entry has sample facts to render it with, and no sentence is spelled twice — within
 * the module, or against the shared catalogue it composes from.
 */

// Verbs an entry's last sentence may start with: each names something the model (or the user
// it tells) can do. A new entry that ends with a fact, not an action, fails.
const IMPERATIVES = new Set([
  'ask',
  'call',
  'keep',
  'map',
  'narrow',
  'pass',
  'rename',
  'retry',
  'return',
  'select',
  'send',
  'set',
  'tell',
  'try',
  'use',
]);

/** The first word of the last sentence, after a leading condition ("If this persists, tell …"). */
function lastInstructionVerb(text: string): string {
  const sentences = text.trim().split(/(?<=[.!?])\s+(?=[A-Z])/);
  const last = (sentences.at(-1) ?? '').replace(/^If [^,]*, /, '');
  return (last.match(/^[A-Za-z]+/)?.[0] ?? '').toLowerCase();
}

/**
 * What is wrong with an advice module: an empty list when nothing is.
 *
 * @param entries - the module's exports (`import * as advice from './advice.js'`)
 * @param sampleFacts - the arguments each function entry is rendered with (every form: an entry
 *   with a choice lists one argument list per form)
 * @param shared - the catalogue the module composes from (`@s2sp/core/advice`), whose sentences
 *   it must not spell a second way
 */
export function adviceProblems(
  entries: Record<string, unknown>,
  sampleFacts: Record<string, readonly (readonly unknown[])[]>,
  shared: Record<string, unknown> = {},
): string[] {
  const problems: string[] = [];
  const rendered: [string, string][] = [];
  for (const [name, value] of Object.entries(entries)) {
    if (typeof value === 'string') rendered.push([name, value]);
    else if (typeof value === 'function') {
      const forms = sampleFacts[name];
      if (!forms) problems.push(`${name}: a function entry without sample facts`);
      for (const facts of forms ?? [])
        rendered.push([name, (value as (...args: unknown[]) => string)(...facts)]);
    }
  }
  for (const name of Object.keys(sampleFacts))
    if (typeof entries[name] !== 'function') problems.push(`${name}: sample facts of no entry`);
  for (const [name, text] of rendered) {
    if (!text.endsWith('.')) problems.push(`${name}: does not end with a full stop`);
    if (!IMPERATIVES.has(lastInstructionVerb(text)))
      problems.push(`${name}: its last sentence is not an instruction: ${text}`);
  }
  // A composed entry carries its part verbatim; only a second spelling is refused.
  const sentences = new Map<string, string>();
  const add = (source: Record<string, unknown>, prefix: string) => {
    for (const [name, value] of Object.entries(source)) {
      if (typeof value !== 'string') continue;
      for (const sentence of value.split(/(?<=[.!?])\s+(?=[A-Z])/)) {
        const key = sentence.toLowerCase().replace(/\W+/g, ' ').trim();
        const owner = sentences.get(key);
        if (owner === undefined) sentences.set(key, `${prefix}${name}\u0000${sentence}`);
        else if (owner.split('\u0000')[1] !== sentence)
          problems.push(`${prefix}${name}: spells "${sentence}" a second way`);
      }
    }
  };
  add(shared, 'shared ');
  add(entries, '');
  return problems;
}
