/**
 * What the index engine is asked in place of the port's terms: text folded the way the port
 * promises, and the access filter as query clauses.
 */
import type { estypes } from '@elastic/elasticsearch';
import type { AccessFilter } from '@odp/core';

/**
 * Folds case and accents the way the port promises: lower case, compatibility forms (ligatures,
 * full-width letters) decomposed, combining diacritical marks removed. Marks outside the
 * diacritical blocks (vowel signs of Indic scripts, for instance) are kept: they are letters of
 * the word, not accents. Everything but letters, digits and marks becomes a space, so words are
 * the runs `searchTerms` finds in a query: the standard tokenizer alone would keep
 * `globex.example` or `o'brien` as one word, and `example` would not be a prefix of a word there.
 */
export function foldSearchText(text: string): string {
  return text
    .toLowerCase()
    .normalize('NFKD')
    .replace(/[\u0300-\u036f\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff\ufe20-\ufe2f]/gu, '')
    .normalize('NFC')
    .replace(/[^\p{L}\p{N}\p{M}]+/gu, ' ');
}

/**
 * The access filter as query clauses: under `acl`, an entry is visible when none of its classes is
 * protected or it carries one of the caller's acIds.
 */
export function accessClauses(access: AccessFilter): estypes.QueryDslQueryContainer[] {
  if (access.kind === 'all') return [];
  return [
    {
      bool: {
        should: [
          { bool: { must_not: [{ terms: { classes: [...access.protectedClasses] } }] } },
          { terms: { aclIds: [...access.acIds] } },
        ],
        minimum_should_match: 1,
      },
    },
  ];
}
