/**
 * The input of a relation: the linked objects as removable chips and a typeahead (an ARIA combobox)
 * that searches the relation's linkable classes through the API as one types (`GET
 * /data/{tenant}/<class>?q=<text>&size=8`, the full-text index, prefix matches), so any object can
 * be linked, not only a first page. Arrow keys move through the suggestions, Enter links one,
 * Escape closes them.
 */
import { get, tenantPath } from '../api.js';
import { h } from '../dom.js';
import { classLabel, objectName } from '../format.js';

const SUGGESTIONS = 8;
const TYPING_PAUSE_MS = 200;

/** The class metadata (fields) of each linkable class, fetched once per picker. */
function metadataOf(plural, cache) {
  if (!cache.has(plural)) {
    cache.set(
      plural,
      get(`${tenantPath('metadata', 'dataObject')}?classes=${encodeURIComponent(plural)}`).catch(() => ({
        fields: [],
      })),
    );
  }
  return cache.get(plural);
}

async function suggestions(relation, text, cache) {
  const found = await Promise.all(
    relation.linkableClasses.map(async (plural) => {
      const [page, metadata] = await Promise.all([
        get(`${tenantPath('data', plural)}?q=${encodeURIComponent(text)}&size=${SUGGESTIONS}`).catch(() => ({
          _embedded: {},
        })),
        metadataOf(plural, cache),
      ]);
      return Object.values(page._embedded ?? {})
        .flat()
        .map((row) => ({
          href: row._links._self.href,
          name: objectName(metadata.fields, row) ?? row._links._self.href.split('/').pop(),
          plural,
        }));
    }),
  );
  return found.flat().slice(0, SUGGESTIONS);
}

/** `{element, input, value(), changed()}`: `value()` is the hrefs (multiple) or one href or null. */
export function relationPicker(relation, linked) {
  const initial = linked.map((link) => ({ href: link.href, name: link.name ?? link.href }));
  let chosen = [...initial];
  let options = [];
  let active = -1;
  let timer = null;
  const cache = new Map();
  const id = `field-${relation.name}`;
  const listId = `${id}-options`;
  const chips = h('div', { class: 'chips', 'data-linked': relation.name });
  const listbox = h('ul', {
    id: listId,
    role: 'listbox',
    class: 'suggestions',
    hidden: true,
    'aria-label': `Suggestions for ${relation.name}`,
  });
  const input = h('input', {
    id,
    type: 'text',
    role: 'combobox',
    autocomplete: 'off',
    'aria-autocomplete': 'list',
    'aria-expanded': 'false',
    'aria-controls': listId,
    'aria-describedby': `${id}-error`,
    placeholder: `Type to find ${relation.linkableClasses.map(classLabel).join(' or ').toLowerCase()}`,
  });
  const close = () => {
    listbox.hidden = true;
    input.setAttribute('aria-expanded', 'false');
    input.removeAttribute('aria-activedescendant');
    active = -1;
  };
  const renderChips = () =>
    chips.replaceChildren(
      ...chosen.map((item, index) =>
        h(
          'span',
          { class: 'chip', 'data-linked-name': item.name },
          item.name,
          h(
            'button',
            {
              type: 'button',
              class: 'secondary',
              'aria-label': `Unlink ${item.name}`,
              onclick: () => {
                chosen.splice(index, 1);
                renderChips();
              },
            },
            '×',
          ),
        ),
      ),
    );
  const pick = (option) => {
    chosen = relation.multiple ? [...chosen.filter((c) => c.href !== option.href), option] : [option];
    input.value = '';
    close();
    renderChips();
    input.focus();
  };
  const renderOptions = () => {
    listbox.replaceChildren(
      ...(options.length === 0
        ? [h('li', { class: 'muted', role: 'option', 'aria-disabled': 'true' }, 'No match')]
        : options.map((option, index) =>
            h(
              'li',
              {
                id: `${listId}-${index}`,
                role: 'option',
                'aria-selected': index === active ? 'true' : 'false',
                'data-option': option.name,
                onmousedown: (event) => {
                  event.preventDefault();
                  pick(option);
                },
              },
              option.name,
              relation.linkableClasses.length > 1
                ? h('span', { class: 'muted' }, ` (${classLabel(option.plural)})`)
                : null,
            ),
          )),
    );
    listbox.hidden = false;
    input.setAttribute('aria-expanded', 'true');
    if (active >= 0) input.setAttribute('aria-activedescendant', `${listId}-${active}`);
    else input.removeAttribute('aria-activedescendant');
  };
  input.addEventListener('input', () => {
    clearTimeout(timer);
    const text = input.value.trim();
    if (text === '') return close();
    timer = setTimeout(async () => {
      const found = await suggestions(relation, text, cache);
      if (input.value.trim() !== text) return;
      options = found;
      active = found.length > 0 ? 0 : -1;
      renderOptions();
    }, TYPING_PAUSE_MS);
  });
  input.addEventListener('keydown', (event) => {
    if (listbox.hidden) return;
    if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
      event.preventDefault();
      const step = event.key === 'ArrowDown' ? 1 : -1;
      active = options.length === 0 ? -1 : (active + step + options.length) % options.length;
      renderOptions();
    } else if (event.key === 'Enter' && active >= 0) {
      event.preventDefault();
      pick(options[active]);
    } else if (event.key === 'Escape') {
      close();
    }
  });
  input.addEventListener('blur', () => setTimeout(close, 150));
  renderChips();
  const hrefs = () => chosen.map((item) => item.href);
  return {
    input,
    element: h('div', { class: 'relation-picker' }, chips, h('div', { class: 'combo' }, input, listbox)),
    value: () => (relation.multiple ? hrefs() : (hrefs()[0] ?? null)),
    changed: () => JSON.stringify(hrefs()) !== JSON.stringify(initial.map((item) => item.href)),
  };
}
