/**
 * The engine-neutral rule of `unique` fields (`TenantDocuments.write`): a value of a `unique` field
 * may be held by one object of the field's declaring class only (subclasses included), compared by
 * its index keys (text case-folded). Each adapter checks the keys these functions give against its
 * own storage.
 */
import { ConflictError } from '../errors.js';
import { indexedFields, indexKeysOf } from '../index-keys.js';
import type { IndexKey } from '../index-keys.js';
import type { FieldDef, Model } from '../model.js';

/** A `unique` indexed field of an object and the index keys of its value (none when empty). */
export interface UniqueValue {
  readonly field: FieldDef;
  readonly keys: IndexKey[];
}

/**
 * The `unique` indexed fields of an object of `classes` with the keys of its `values`, one per
 * declaring class and name (a field inherited through several classes is checked once).
 */
export function uniqueValuesOf(
  model: Model,
  classes: readonly string[],
  values: Readonly<Record<string, unknown>>,
): UniqueValue[] {
  const seen = new Set<string>();
  const unique: UniqueValue[] = [];
  for (const className of classes) {
    const classDef = model.classes.get(className);
    if (classDef === undefined) continue;
    for (const field of indexedFields(classDef)) {
      const scope = `${field.declaredOn}\u0000${field.name}`;
      if (!field.unique || seen.has(scope)) continue;
      seen.add(scope);
      unique.push({ field, keys: indexKeysOf(field, values[field.name]) });
    }
  }
  return unique;
}

/** The refusal of a value another object of the declaring class already holds (409). */
export function refuseUniqueValue(fieldName: string): never {
  throw new ConflictError(`Another object already has this value of the unique field ${fieldName}.`, {
    field: fieldName,
  });
}
