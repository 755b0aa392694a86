import { ApiError, call, get, tenantPath } from '../api.js';
import { alertBox, h, notice, show, viewOf } from '../dom.js';
import { classLabel, fieldLabel, objectName } from '../format.js';
import { fileInput } from './file-input.js';
import { relationPicker } from './relation-picker.js';

const NUMERIC = new Set(['INTEGER', 'DECIMAL', 'CURRENCY', 'PERCENTAGE']);
const JSON_TYPES = new Set(['JSON', 'ARRAY']);
const LONG_TEXT = new Set(['TEXTBLOCK', 'LONGTEXT']);
/** FILE and IMAGE values come from an upload (docs/files.md): file-input.js. */
const FILE_TYPES = new Set(['FILE', 'IMAGE']);

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

/**
 * Create (`object` null) or edit an object with the fields and relations its form metadata offers.
 * The server validates: its problem's `errors` are shown under each field they name.
 */
export async function formView(typeName, id) {
  const object = id === null ? null : await get(tenantPath('data', typeName, id));
  const form = await get(
    object?._links._form.href ?? `${tenantPath('metadata', 'form')}?classes=${encodeURIComponent(typeName)}`,
  );
  const fields = form.fields.filter((f) => !f.readOnly && !f.hidden && !FILE_TYPES.has(f.type));
  const fileFields = form.fields.filter((f) => !f.readOnly && !f.hidden && FILE_TYPES.has(f.type));
  const relations = form.relations.filter((r) => !r.readOnly && r.direction !== 'reverse');
  const currentLinks = (relation) => {
    const link = object?._links[relation.name];
    if (link === undefined) return [];
    return 'values' in link ? (link.values ?? []) : 'name' in link ? [link] : [];
  };
  /** File inputs and relation pickers: widgets with their own value (file-input.js, relation-picker.js). */
  const widgets = new Map();

  const summary = h('div', { id: 'form-errors' });
  const rows = [];
  const inputs = new Map();
  const initial = new Map();
  const row = (name, labelText, required, input, hint, element = input) => {
    const error = h('div', { class: 'field-error', id: `${input.id}-error`, 'data-error-for': name });
    rows.push(
      h(
        'div',
        { class: 'field', 'data-field': name },
        h('label', { for: input.id }, labelText, required ? ' *' : ''),
        h('div', {}, element, hint ? h('div', { class: 'muted' }, hint) : null, error),
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
      fieldLabel(field),
      field.required,
      input,
      field.default ? `default: ${JSON.stringify(field.default.value ?? field.default)}` : null,
    );
  }
  for (const field of fileFields) {
    const widget = fileInput(field, object?.[field.name]);
    widgets.set(field.name, widget);
    row(field.name, fieldLabel(field), field.required, widget.input, null, widget.element);
  }
  for (const relation of relations) {
    const widget = relationPicker(relation, currentLinks(relation));
    widgets.set(relation.name, widget);
    row(relation.name, fieldLabel(relation), relation.required, widget.input, null, widget.element);
  }

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
    if ([...widgets.values()].some((widget) => widget.pending?.())) {
      summary.replaceChildren(alertBox('Wait until the uploads have finished.'));
      return;
    }
    for (const [name, widget] of widgets) {
      if (object === null ? widget.value() === null : !widget.changed()) continue;
      body[name] = widget.value();
    }
    submit.disabled = true;
    try {
      const result =
        object === null
          ? await call('POST', tenantPath('data', typeName), { body, prefer: 'return=representation' })
          : await call('PATCH', tenantPath('data', typeName, id), { body, prefer: 'return=representation' });
      const href = result.body?._links._self.href ?? result.location;
      notice(
        object === null
          ? `Created ${objectName(form.fields, result.body ?? body) ?? 'the object'}.`
          : 'Saved.',
      );
      location.hash = viewOf(href);
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      showErrors(error.problem.errors ?? [], `${error.status}: ${error.message}`);
    } finally {
      submit.disabled = false;
    }
  });

  const name = object === null ? null : objectName(form.fields, object);
  show(
    h('h1', {}, id === null ? `New in ${classLabel(typeName).toLowerCase()}` : `Edit ${name ?? id}`),
    summary,
    element,
  );
}
