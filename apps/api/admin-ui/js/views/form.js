import { ApiError, call, get, tenantPath } from '../api.js';
import { alertBox, h, notice, show, viewOf } from '../dom.js';

const NUMERIC = new Set(['INTEGER', 'DECIMAL', 'CURRENCY', 'PERCENTAGE']);
const JSON_TYPES = new Set(['JSON', 'ARRAY']);
const LONG_TEXT = new Set(['TEXTBLOCK', 'LONGTEXT']);
/** FILE and IMAGE values come from an upload (docs/files.md), which this page does not offer. */
const NOT_EDITABLE = new Set(['FILE', 'IMAGE']);
/** How many candidate objects a relation's choice offers per linkable class. */
const CHOICES = 100;

function currentValue(value) {
  return value !== null && typeof value === 'object' && 'current' in value && 'history' in value
    ? value.current
    : value;
}

/** A field's value as the text of its input. */
function inputText(field, value) {
  const current = currentValue(value);
  if (current === undefined || current === null) return '';
  if (JSON_TYPES.has(field.type)) return JSON.stringify(current, null, 2);
  if (field.multiple) return current.map(String).join('\n');
  return String(current);
}

function inputFor(field, text, editing) {
  const id = `field-${field.name}`;
  const common = { id, name: field.name, 'aria-describedby': `${id}-error` };
  if (field.type === 'LIST') {
    return h(
      'select',
      common,
      h('option', { value: '' }, ''),
      field.list.values.map((item) =>
        h('option', { value: item.key, selected: item.key === text }, item.label),
      ),
    );
  }
  if (field.type === 'BOOLEAN') {
    return h(
      'select',
      common,
      ['', 'true', 'false'].map((v) =>
        h('option', { value: v, selected: v === text }, v === '' ? '' : v === 'true' ? 'yes' : 'no'),
      ),
    );
  }
  if (JSON_TYPES.has(field.type) || LONG_TEXT.has(field.type) || field.multiple) {
    const area = h('textarea', {
      ...common,
      placeholder: field.multiple && !JSON_TYPES.has(field.type) ? 'one value a line' : '',
    });
    area.value = text;
    return area;
  }
  const type =
    field.type === 'SECRET'
      ? 'password'
      : field.type === 'EMAIL'
        ? 'email'
        : field.type === 'DATE'
          ? 'date'
          : field.type === 'TIME'
            ? 'time'
            : 'text';
  return h('input', {
    ...common,
    type,
    value: field.type === 'SECRET' ? '' : text,
    inputmode: NUMERIC.has(field.type) ? 'decimal' : null,
    placeholder:
      field.type === 'SECRET' && editing
        ? 'unchanged when empty'
        : field.type === 'DATETIME'
          ? 'YYYY-MM-DDTHH:MM:SSZ'
          : null,
    autocomplete: 'off',
  });
}

/**
 * The value a field's input sends, or `undefined` to leave it out. Numbers that do not parse are sent
 * as typed, so the server's validation names the field; so are e-mail addresses and dates.
 */
function fieldValue(field, element) {
  const text = element.value.trim();
  if (field.type === 'SECRET') return text === '' ? undefined : text;
  if (text === '') return null;
  if (JSON_TYPES.has(field.type)) {
    try {
      return JSON.parse(text);
    } catch {
      throw new FieldProblem(field.name, 'is not valid JSON');
    }
  }
  const one = (item) => {
    if (NUMERIC.has(field.type) && /^-?\d+(\.\d+)?$/.test(item)) return Number(item);
    if (field.type === 'BOOLEAN') return item === 'true';
    return item;
  };
  return field.multiple
    ? text
        .split('\n')
        .map((line) => one(line.trim()))
        .filter((v) => v !== '')
    : one(text);
}

class FieldProblem extends Error {
  constructor(field, message) {
    super(message);
    this.field = field;
  }
}

/** A label for a candidate object: its first text value (the list rows carry no display name). */
function labelOf(row) {
  const text = Object.entries(row).find(
    ([name, value]) => !name.startsWith('_') && typeof value === 'string',
  );
  return text ? text[1] : row._links._self.href.split('/').pop();
}

async function relationChoices(relation, current) {
  const lists = await Promise.all(
    relation.linkableClasses.map((plural) =>
      get(`${tenantPath('data', plural)}?size=${CHOICES}`).catch(() => ({ _embedded: {} })),
    ),
  );
  const choices = new Map(current.map((link) => [link.href, link.name ?? link.href]));
  for (const row of lists.flatMap((page) => Object.values(page._embedded ?? {}).flat())) {
    if (!choices.has(row._links._self.href)) choices.set(row._links._self.href, labelOf(row));
  }
  return [...choices.entries()].sort((a, b) => a[1].localeCompare(b[1]));
}

function relationInput(relation, choices, selected) {
  const id = `field-${relation.name}`;
  return h(
    'select',
    { id, name: relation.name, multiple: relation.multiple, 'aria-describedby': `${id}-error` },
    relation.multiple ? null : h('option', { value: '' }, ''),
    choices.map(([href, name]) => h('option', { value: href, selected: selected.includes(href) }, name)),
  );
}

/**
 * Create (`object` null) or edit an object with the fields and relations its form metadata offers.
 * The server validates: its problem's `errors` are shown under each field they name.
 */
export async function formView(typeName, id) {
  const object = id === null ? null : await get(tenantPath('data', typeName, id));
  const form = await get(
    object?._links._form.href ?? `${tenantPath('metadata', 'form')}?classes=${encodeURIComponent(typeName)}`,
  );
  const fields = form.fields.filter((f) => !f.readOnly && !f.hidden && !NOT_EDITABLE.has(f.type));
  const relations = form.relations.filter((r) => !r.readOnly && r.direction !== 'reverse');
  const currentLinks = (relation) => {
    const link = object?._links[relation.name];
    if (link === undefined) return [];
    return 'values' in link ? (link.values ?? []) : 'name' in link ? [link] : [];
  };
  const choices = await Promise.all(relations.map((r) => relationChoices(r, currentLinks(r))));

  const summary = h('div', { id: 'form-errors' });
  const rows = [];
  const inputs = new Map();
  const initial = new Map();
  const row = (name, labelText, required, input, hint) => {
    const error = h('div', { class: 'field-error', id: `${input.id}-error`, 'data-error-for': name });
    rows.push(
      h(
        'div',
        { class: 'field', 'data-field': name },
        h('label', { for: input.id }, labelText, required ? ' *' : ''),
        h('div', {}, input, hint ? h('div', { class: 'muted' }, hint) : null, error),
      ),
    );
    inputs.set(name, { input, error });
  };
  for (const field of fields) {
    const text = inputText(field, object?.[field.name]);
    const input = inputFor(field, text, object !== null);
    initial.set(field.name, field.type === 'SECRET' ? '' : text);
    row(
      field.name,
      field.label,
      field.required,
      input,
      field.default ? `default: ${JSON.stringify(field.default.value ?? field.default)}` : null,
    );
  }
  relations.forEach((relation, index) => {
    const selected = currentLinks(relation).map((link) => link.href);
    initial.set(relation.name, JSON.stringify(selected));
    row(
      relation.name,
      relation.name,
      relation.required,
      relationInput(relation, choices[index], selected),
      relation.multiple ? 'several: Ctrl-click' : null,
    );
  });

  const submit = h('button', { type: 'submit', id: 'save' }, id === null ? 'Create' : 'Save');
  const element = h(
    'form',
    { class: 'record', id: 'record-form', novalidate: true },
    rows,
    h(
      'div',
      { class: 'actions' },
      submit,
      ' ',
      h(
        'a',
        { href: object ? viewOf(object._links._self.href) : `#/list/${encodeURIComponent(typeName)}` },
        'Cancel',
      ),
    ),
  );

  const showErrors = (problems, detail) => {
    const unmatched = [];
    for (const { field, message } of problems) {
      const target = inputs.get(field) ?? inputs.get(String(field).split('.')[0]);
      if (target === undefined) {
        unmatched.push(`${field}: ${message}`);
        continue;
      }
      target.error.textContent = target.error.textContent
        ? `${target.error.textContent}; ${message}`
        : message;
      target.input.setAttribute('aria-invalid', 'true');
    }
    summary.replaceChildren(alertBox([detail, ...unmatched].join(' ')));
    const first = [...inputs.values()].find((i) => i.input.getAttribute('aria-invalid') === 'true');
    first?.input.focus();
  };

  element.addEventListener('submit', async (event) => {
    event.preventDefault();
    summary.replaceChildren();
    for (const { input, error } of inputs.values()) {
      error.textContent = '';
      input.removeAttribute('aria-invalid');
    }
    const body = {};
    try {
      for (const field of fields) {
        const input = inputs.get(field.name).input;
        if (object !== null && input.value.trim() === initial.get(field.name).trim()) continue;
        const value = fieldValue(field, input);
        if (value === undefined || (value === null && object === null)) continue;
        body[field.name] = value;
      }
    } catch (problem) {
      if (!(problem instanceof FieldProblem)) throw problem;
      showErrors([{ field: problem.field, message: problem.message }], 'Fix the marked field.');
      return;
    }
    for (const relation of relations) {
      const input = inputs.get(relation.name).input;
      const selected = [...input.selectedOptions].map((o) => o.value).filter((v) => v !== '');
      if (object !== null && JSON.stringify(selected) === initial.get(relation.name)) continue;
      if (relation.multiple) body[relation.name] = selected;
      else if (selected.length > 0) body[relation.name] = selected[0];
      else if (object !== null) body[relation.name] = null;
    }
    submit.disabled = true;
    try {
      const result =
        object === null
          ? await call('POST', tenantPath('data', typeName), { body, prefer: 'return=representation' })
          : await call('PATCH', tenantPath('data', typeName, id), { body, prefer: 'return=representation' });
      const href = result.body?._links._self.href ?? result.location;
      notice(object === null ? `Created ${typeName}.` : 'Saved.');
      location.hash = viewOf(href);
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      showErrors(error.problem.errors ?? [], `${error.status}: ${error.message}`);
    } finally {
      submit.disabled = false;
    }
  });

  const skipped = form.fields.filter((f) => NOT_EDITABLE.has(f.type) && !f.readOnly && !f.hidden);
  show(
    h(
      'h1',
      {},
      id === null ? `New ${typeName}` : `Edit ${typeName} `,
      id === null ? null : h('span', { class: 'muted' }, id),
    ),
    summary,
    element,
    skipped.length === 0
      ? null
      : h(
          'p',
          { class: 'muted' },
          `Files (${skipped.map((f) => f.name).join(', ')}) are set through an upload; see the files documentation.`,
        ),
  );
}
