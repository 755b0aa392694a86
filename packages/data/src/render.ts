/**
 * DataObject rendering (interface spec "DataObject"): `_class`, `_classes`, dates, visible fields
 * with values (hidden and SECRET fields omitted, history fields as `{current, history}`, FILE and
 * IMAGE as file objects), and `_links` with the object's own links, single relations as
 * `{href, name}` and multi-valued relations and inverse sides as `{href, values?}`. Linked objects
 * the account may not read are left out, as if the link did not exist.
 */
import type { AccessFilter, FieldDef, Model, StoredObject, TenantStore } from '@odp/core';
import { fieldsOf, relationsOf } from './classes.js';
import { objectHref } from './compute.js';
import { storedFiles } from './encode.js';
import { historyOf } from './history.js';

export type DataObject = Record<string, unknown>;

interface LinkedRef {
  readonly href: string;
  readonly name: string | null;
}

export class Renderer {
  constructor(
    private readonly model: Model,
    private readonly tenantId: string,
  ) {}

  plural(className: string): string {
    return this.model.classes.get(className)?.plural ?? className;
  }

  href(object: { id: string; basicClass: string }): string {
    return objectHref(this.model, this.tenantId, object);
  }

  /** Renders objects in order, loading linked objects once for all of them through `access`. */
  async render(
    objects: readonly StoredObject[],
    store: TenantStore,
    access: AccessFilter,
  ): Promise<DataObject[]> {
    const inverse = new Map<string, { sourceId: string; relationKey: string }[]>();
    await Promise.all(objects.map(async (object) => inverse.set(object.id, await store.linksTo(object.id))));
    const ids = new Set<string>();
    for (const object of objects) {
      for (const linked of Object.values(object.links)) for (const id of linked) ids.add(id);
      for (const link of inverse.get(object.id) ?? []) ids.add(link.sourceId);
    }
    const visible = new Map<string, LinkedRef>();
    for (const linked of ids.size > 0 ? await store.getMany([...ids], access) : []) {
      visible.set(linked.id, { href: this.href(linked), name: linked.name });
    }
    return objects.map((object) => this.renderOne(object, visible, inverse.get(object.id) ?? []));
  }

  private renderOne(
    object: StoredObject,
    visible: ReadonlyMap<string, LinkedRef>,
    inverse: readonly { sourceId: string; relationKey: string }[],
  ): DataObject {
    const self = this.href(object);
    const plurals = object.classes.map((name) => this.plural(name));
    const classesQuery = `classes=${encodeURIComponent(plurals.join(','))}`;
    const links: Record<string, unknown> = {
      _self: { href: self },
      _scripts: { href: `/scripts/${this.tenantId}/${this.plural(object.basicClass)}/${object.id}` },
      _metadata: { href: `/metadata/${this.tenantId}/dataObject?${classesQuery}` },
      _relatedDataObject: { href: `/metadata/${this.tenantId}/relatedDataObject?${classesQuery}` },
      _form: { href: `/metadata/${this.tenantId}/form?${classesQuery}` },
    };
    for (const end of relationsOf(this.model, object.classes).values()) {
      const ids =
        end.direction === 'forward'
          ? (object.links[end.relation.key] ?? [])
          : inverse.filter((link) => link.relationKey === end.relation.key).map((link) => link.sourceId);
      const values = ids.map((id) => visible.get(id)).filter((ref): ref is LinkedRef => ref !== undefined);
      if (!end.multiple) {
        if (values[0]) links[end.name] = values[0];
        continue;
      }
      links[end.name] = { href: `${self}/${end.name}`, ...(values.length > 0 ? { values } : {}) };
    }
    const body: DataObject = {
      _class: this.plural(object.basicClass),
      _classes: plurals,
      _creationDate: object.createdAt,
      _modificationDate: object.modifiedAt,
    };
    const history = historyOf(object.values);
    for (const field of fieldsOf(this.model, object.classes).values()) {
      const value = object.values[field.name];
      if (field.hidden || field.type === 'SECRET' || value === undefined || value === null) continue;
      const rendered = this.renderValue(object.id, field, value);
      body[field.name] = field.history
        ? {
            current: rendered,
            history: (history[field.name] ?? []).map((entry) => ({
              ...entry,
              value: entry.value === null ? null : this.renderValue(object.id, field, entry.value),
            })),
          }
        : rendered;
    }
    body['_links'] = links;
    return body;
  }

  /** A stored value in its response encoding (FILE and IMAGE become file objects). */
  renderValue(objectId: string, field: FieldDef, value: unknown): unknown {
    if (field.type !== 'FILE' && field.type !== 'IMAGE') return value;
    const files = storedFiles(value).map((file) => ({
      contentType: file.contentType,
      fileName: file.fileName,
      size: file.size,
      href: `/data/${this.tenantId}/download/${objectId}/${file.fileId}`,
    }));
    return field.multiple ? files : (files[0] ?? null);
  }
}
