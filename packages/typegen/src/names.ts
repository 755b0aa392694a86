/**
 * TypeScript names for the generated declarations: one per class and list, from its short name
 * (`crm.invoice` -> `Invoice`), qualified by its package when two would collide
 * (`CrmInvoice`), and never one of the shared names the file itself declares.
 */

/** `crm.invoiceStatus` -> `InvoiceStatus`; `crm.invoice-line` -> `InvoiceLine`. */
export function pascal(text: string): string {
  return text
    .split(/[^A-Za-z0-9]+/)
    .filter((part) => part !== '')
    .map((part) => part[0]!.toUpperCase() + part.slice(1))
    .join('')
    .replace(/^(\d)/, '_$1');
}

/** Unique type names for qualified model names, avoiding `taken` and each other. */
export function typeNames(qualified: readonly string[], taken: ReadonlySet<string>): Map<string, string> {
  const short = (name: string) => pascal(name.slice(name.lastIndexOf('.') + 1)) || 'Unnamed';
  const counts = new Map<string, number>();
  for (const name of qualified) counts.set(short(name), (counts.get(short(name)) ?? 0) + 1);
  const used = new Set(taken);
  const names = new Map<string, string>();
  for (const name of qualified) {
    let candidate = counts.get(short(name)) === 1 ? short(name) : pascal(name);
    while (used.has(candidate)) candidate = `${candidate}_`;
    used.add(candidate);
    names.set(name, candidate);
  }
  return names;
}

/** A property key as written in a declaration: bare when an identifier, quoted otherwise. */
export function propertyKey(name: string): string {
  return /^[A-Za-z_$][\w$]*$/.test(name) ? name : JSON.stringify(name);
}
