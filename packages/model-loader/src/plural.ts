/** Nouns whose plural is not formed by a rule; extend when a model needs another. */
const IRREGULAR: Readonly<Record<string, string>> = {
  person: 'persons',
  quiz: 'quizzes',
  child: 'children',
  man: 'men',
  woman: 'women',
  foot: 'feet',
  tooth: 'teeth',
  mouse: 'mice',
  goose: 'geese',
  criterion: 'criteria',
  datum: 'data',
  index: 'indices',
  matrix: 'matrices',
  analysis: 'analyses',
  thesis: 'theses',
  crisis: 'crises',
  leaf: 'leaves',
  knife: 'knives',
  life: 'lives',
  wife: 'wives',
  half: 'halves',
  shelf: 'shelves',
};
/** Nouns that do not change. */
const UNCHANGED = new Set([
  'equipment',
  'information',
  'series',
  'species',
  'software',
  'staff',
  'news',
  'metadata',
]);
/** Words ending in consonant + o that take -es. */
const O_ES = new Set(['hero', 'potato', 'tomato', 'echo', 'veto']);

/**
 * The REST name of a class: the English plural of the part after the last dot, applied to the last
 * word of a camelCase name (`serviceCallLog` -> `serviceCallLogs`, `logEntry` -> `logEntries`).
 */
export function derivePlural(qualifiedName: string): string {
  const name = qualifiedName.slice(qualifiedName.lastIndexOf('.') + 1);
  const match = /^(.*?)([A-Z]?[a-z0-9]*)$/.exec(name);
  const head = match?.[1] ?? '';
  const word = match?.[2] ?? name;
  const capital = word.charAt(0) !== word.charAt(0).toLowerCase();
  const lower = word.toLowerCase();
  const plural = pluralOfWord(lower);
  return head + (capital ? plural.charAt(0).toUpperCase() + plural.slice(1) : plural);
}

function pluralOfWord(word: string): string {
  const irregular = IRREGULAR[word];
  if (irregular) return irregular;
  if (UNCHANGED.has(word) || word === '') return word;
  if (O_ES.has(word)) return `${word}es`;
  if (/(s|x|z|ch|sh)$/.test(word)) return `${word}es`;
  if (/[^aeiou]y$/.test(word)) return `${word.slice(0, -1)}ies`;
  return `${word}s`;
}
