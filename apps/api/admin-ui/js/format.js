/**
 * How values of a class's fields read on screen: LIST keys as their labels, dates and times in the
 * browser's locale, numbers grouped, CURRENCY with two decimals, BOOLEAN as yes/no, history fields
 * by their current value, files by name and size. Field metadata is `GET /metadata/{tenant}/dataObject`.
 */

const dateFormat = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeZone: 'UTC' });
const dateTimeFormat = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });
const integerFormat = new Intl.NumberFormat();
const decimalFormat = new Intl.NumberFormat(undefined, { maximumFractionDigits: 6 });
const currencyFormat = new Intl.NumberFormat(undefined, {
  minimumFractionDigits: 2,
  maximumFractionDigits: 2,
});
const percentFormat = new Intl.NumberFormat(undefined, { maximumFractionDigits: 2 });

/**
 * A field's label as a person reads it: the model's label, or, where the model gave none (the
 * label is the field name), the name split at its capitals: `foundedOn` reads "Founded on".
 */
export function fieldLabel(field) {
  if (field.label && field.label !== field.name) return field.label;
  const words = field.name.replace(/([a-z0-9])([A-Z])/g, '$1 $2').toLowerCase();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** A class's plural name as a heading: `invoiceLines` reads "Invoice lines". */
export function classLabel(plural) {
  return fieldLabel({ name: plural });
}

/** Whether a value is a history field's `{current, history}`. */
export function isHistory(value) {
  return value !== null && typeof value === 'object' && 'current' in value && 'history' in value;
}

/** Whether a value is a stored file's descriptor (FILE or IMAGE). */
export function isFile(value) {
  return value !== null && typeof value === 'object' && 'fileName' in value && 'href' in value;
}

/** A byte count as "12.3 kB". */
export function formatBytes(size) {
  if (size < 1000) return `${size} B`;
  const units = ['kB', 'MB', 'GB', 'TB'];
  let value = size;
  let unit = -1;
  while (value >= 1000 && unit < units.length - 1) {
    value /= 1000;
    unit += 1;
  }
  return `${decimalFormat.format(Math.round(value * 10) / 10)} ${units[unit]}`;
}

/** An ISO timestamp or date in the browser's locale; anything that does not parse, as given. */
export function formatTimestamp(text) {
  const date = new Date(text);
  return Number.isNaN(date.getTime()) ? String(text) : dateTimeFormat.format(date);
}

function formatOne(field, value) {
  if (value === null || value === undefined) return '';
  switch (field?.type) {
    case 'LIST':
      return field.list?.values.find((item) => item.key === value)?.label ?? String(value);
    case 'DATE': {
      const date = new Date(`${value}T00:00:00Z`);
      return Number.isNaN(date.getTime()) ? String(value) : dateFormat.format(date);
    }
    case 'DATETIME':
      return formatTimestamp(value);
    case 'INTEGER':
      return typeof value === 'number' ? integerFormat.format(value) : String(value);
    case 'DECIMAL':
      return typeof value === 'number' ? decimalFormat.format(value) : String(value);
    case 'CURRENCY':
      return typeof value === 'number' ? currencyFormat.format(value) : String(value);
    case 'PERCENTAGE':
      return typeof value === 'number' ? `${percentFormat.format(value)} %` : String(value);
    case 'BOOLEAN':
      return value === true ? 'yes' : value === false ? 'no' : String(value);
    default:
      if (isFile(value)) return `${value.fileName} (${formatBytes(value.size)})`;
      return typeof value === 'object' ? JSON.stringify(value) : String(value);
  }
}

/** A field's value as text (`field` may be undefined: the value is shown as it is). */
export function formatValue(field, value) {
  if (isHistory(value)) return formatValue(field, value.current);
  if (Array.isArray(value) && field?.type !== 'JSON') return value.map((v) => formatOne(field, v)).join(', ');
  return formatOne(field, value);
}

/**
 * The name of an object as a heading: its required text fields (up to two, in the model's order:
 * "Ann" "de Vries", "Acme BV"), else its first text value, else null. The API names linked objects
 * by the class's name formula; an object read on its own carries no name, so the page derives one.
 */
export function objectName(fields, object) {
  const texts = fields.filter((f) => (f.type === 'TEXT' || f.type === 'EMAIL') && !f.hidden);
  const value = (f) => {
    const current = isHistory(object[f.name]) ? object[f.name].current : object[f.name];
    return typeof current === 'string' && current.trim() !== '' ? current : null;
  };
  const required = texts
    .filter((f) => f.required && !f.multiple)
    .map(value)
    .filter(Boolean)
    .slice(0, 2);
  if (required.length > 0) return required.join(' ');
  return texts.map(value).find(Boolean) ?? null;
}
