/**
 * The engine-neutral part of `TenantDocuments.hiddenDerivedFields`: which derived fields of which
 * objects were computed from an object the reader may not see. Objects of one class combination
 * share their derived fields, so each field's source paths are checked once per combination; the
 * check along the paths is the engine's.
 */
import { derivedSourcesOf } from '../derived.js';
import type { SourcePath } from '../derived.js';
import type { Model } from '../model.js';

/**
 * The ids among `ids` (objects of one class combination) whose value along one of `paths` was
 * computed from an object the reader's access filter hides.
 */
export type HiddenAlongPaths = (
  ids: readonly string[],
  paths: readonly SourcePath[],
) => Promise<Iterable<string>>;

/** Per object among `objects`: its derived fields computed from a hidden object (objects with none are absent). */
export async function hiddenDerivedFieldsOf(
  model: Model,
  objects: readonly { readonly id: string; readonly classes: readonly string[] }[],
  hiddenAlong: HiddenAlongPaths,
): Promise<Map<string, Set<string>>> {
  const hidden = new Map<string, Set<string>>();
  const byClasses = new Map<string, { classes: readonly string[]; ids: string[] }>();
  for (const object of objects) {
    const key = JSON.stringify(object.classes);
    const group = byClasses.get(key) ?? { classes: object.classes, ids: [] };
    group.ids.push(object.id);
    byClasses.set(key, group);
  }
  for (const group of byClasses.values()) {
    for (const [field, paths] of derivedSourcesOf(model, group.classes)) {
      for (const id of await hiddenAlong(group.ids, paths)) {
        hidden.set(id, (hidden.get(id) ?? new Set<string>()).add(field));
      }
    }
  }
  return hidden;
}
