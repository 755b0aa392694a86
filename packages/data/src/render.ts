/**
 * DataObject rendering (interface spec "DataObject"): `_class`, `_classes`, dates, visible fields
 * with values (hidden and SECRET fields omitted, history fields as `{current, history}`, FILE and
 * IMAGE as file objects), and `_links` with the object's own links, single relations as
 * `{href, name}` and multi-valued relations and inverse sides as `{href, values?}`. Linked objects
 * the account may not read are left out, as if the link did not exist, and so are the derived
 * values computed from them (`TenantDocuments.hiddenDerivedFields`).
 *
 * An inverse side is read-only and may be linked from any number of objects, so its `values` are
 * bounded: the first INVERSE_VALUES linkers in creation order (the first page of its related list,
 * `href`), with `more: true` when there are others. Forward sides are rendered whole: they are what
 * a client sends back in a patch.
 */
import type {
  AccessFilter,
  FieldDef,
  Model,
  ObjectRef,
  RelationEnd,
  StoredObject,
  TenantDocuments,
} from '@odp/core';
import { mapInSlices } from '@odp/core';
import { DEFAULT_PAGE_SIZE } from '@odp/query-engine';
import { fieldsOf, relationsOf } from './classes.js';
import { objectHref } from './compute.js';
import { storedFiles } from './encode.js';
import { historyOf } from './history.js';

export type DataObject = Record<string, unknown>;

interface LinkedRef {
  readonly href: string;
  readonly name: string | null;
}

/** What rendering needs of one combination of classes, worked out once per combination. */
interface ClassesShape {
  readonly plurals: readonly string[];
  readonly classesQuery: string;
  readonly fields: readonly FieldDef[];
  readonly ends: readonly RelationEnd[];
  /** Relation keys of the inverse sides among `ends`. */
  readonly inverseKeys: readonly string[];
  /** Names of the rendered `fields` and of the forward sides among `ends`. */
  readonly readable: ReadonlySet<string>;
}

/** Linkers rendered per inverse side: the related list's default page size. */
export const INVERSE_VALUES = DEFAULT_PAGE_SIZE;

/** Distinct class combinations remembered; gained classes make the set finite but model-sized. */
const MAX_SHAPES = 1000;

export class Renderer {
  private readonly shapes = new Map<string, ClassesShape>();

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

  /**
   * Renders objects in order, in slices of the event loop (a page of 1,000 objects does not hold it
   * for other requests). The linked objects of the whole page are read as refs (id, class and
   * name) in two queries through `access`: those the page links to and those linking to the page.
   */
  async render(
    objects: readonly StoredObject[],
    store: Pick<TenantDocuments, 'refsOf' | 'incomingRefs' | 'hiddenDerivedFields'>,
    access: AccessFilter,
  ): Promise<DataObject[]> {
    if (objects.length === 0) return [];
    const ids = objects.map((object) => object.id);
    const forward = new Set<string>();
    const inverseKeys = new Set<string>();
    for (const object of objects) {
      for (const linked of Object.values(object.links)) for (const id of linked) forward.add(id);
      for (const key of this.shapeOf(object.classes).inverseKeys) inverseKeys.add(key);
    }
    const [incoming, targets, hidden] = await Promise.all([
      inverseKeys.size > 0
        ? store.incomingRefs(ids, access, { relationKeys: [...inverseKeys], limit: INVERSE_VALUES + 1 })
        : Promise.resolve([]),
      forward.size > 0 ? store.refsOf([...forward], access) : Promise.resolve([]),
      store.hiddenDerivedFields(ids, access),
    ]);
    const visible = new Map<string, LinkedRef>();
    const linkedRef = (ref: ObjectRef): LinkedRef => {
      let rendered = visible.get(ref.id);
      if (rendered === undefined) {
        rendered = { href: this.href(ref), name: ref.name };
        visible.set(ref.id, rendered);
      }
      return rendered;
    };
    for (const ref of targets) linkedRef(ref);
    /** Per object on the page: relation key -> the visible objects linking to it through that relation. */
    const inverse = new Map<string, Map<string, LinkedRef[]>>();
    for (const ref of incoming) {
      let byRelation = inverse.get(ref.targetId);
      if (byRelation === undefined) {
        byRelation = new Map();
        inverse.set(ref.targetId, byRelation);
      }
      let refs = byRelation.get(ref.relationKey);
      if (refs === undefined) {
        refs = [];
        byRelation.set(ref.relationKey, refs);
      }
      refs.push(linkedRef(ref));
    }
    return mapInSlices(objects, (object) =>
      this.renderOne(object, visible, inverse.get(object.id), hidden.get(object.id)),
    );
  }

  /**
   * Of `names` (fields and forward relations of an object of `classes`, as a change event lists
   * them), those that rendering the object shows a reader: the fields it renders (neither hidden
   * nor SECRET) except those in `hidden` (derived from objects the reader may not read, see
   * `TenantDocuments.hiddenDerivedFields`), and the forward relations (their links to objects the
   * reader may not read are left out of the relation, as in `render`).
   */
  readableNames(
    classes: readonly string[],
    names: readonly string[],
    hidden: ReadonlySet<string> | undefined,
  ): string[] {
    const { readable } = this.shapeOf(classes);
    return names.filter((name) => readable.has(name) && !hidden?.has(name));
  }

  /**
   * The values of `names` (see {@link readableNames}) in `rendered`, an object as `render` gave
   * it: a field's as its body has it, a relation's as its `_links` entry; null for a name the
   * rendering left out (an empty field, a relation without a link the reader may see).
   */
  renderedValues(rendered: DataObject, names: readonly string[]): Record<string, unknown> {
    const links = rendered['_links'] as Record<string, unknown>;
    const values: Record<string, unknown> = {};
    for (const name of names) {
      values[name] = Object.hasOwn(rendered, name)
        ? rendered[name]
        : Object.hasOwn(links, name)
          ? links[name]
          : null;
    }
    return values;
  }

  private shapeOf(classes: readonly string[]): ClassesShape {
    const key = classes.join('\n');
    let shape = this.shapes.get(key);
    if (shape === undefined) {
      const plurals = classes.map((name) => this.plural(name));
      const ends = [...relationsOf(this.model, classes).values()];
      const fields = [...fieldsOf(this.model, classes).values()].filter(
        (field) => !field.hidden && field.type !== 'SECRET',
      );
      shape = {
        plurals,
        classesQuery: `classes=${encodeURIComponent(plurals.join(','))}`,
        fields,
        ends,
        inverseKeys: ends.filter((end) => end.direction === 'inverse').map((end) => end.relation.key),
        readable: new Set([
          ...fields.map((field) => field.name),
          ...ends.filter((end) => end.direction === 'forward').map((end) => end.name),
        ]),
      };
      if (this.shapes.size >= MAX_SHAPES) this.shapes.clear();
      this.shapes.set(key, shape);
    }
    return shape;
  }

  private renderOne(
    object: StoredObject,
    visible: ReadonlyMap<string, LinkedRef>,
    inverse: ReadonlyMap<string, readonly LinkedRef[]> | undefined,
    /** Derived fields computed from objects the reader may not read: left out as if empty. */
    hidden: ReadonlySet<string> | undefined,
  ): DataObject {
    const self = this.href(object);
    const { plurals, classesQuery, fields, ends } = this.shapeOf(object.classes);
    const links: Record<string, unknown> = {
      _self: { href: self },
      _scripts: { href: `/scripts/${this.tenantId}/${this.plural(object.basicClass)}/${object.id}` },
      _metadata: { href: `/metadata/${this.tenantId}/dataObject?${classesQuery}` },
      _relatedDataObject: { href: `/metadata/${this.tenantId}/relatedDataObject?${classesQuery}` },
      _form: { href: `/metadata/${this.tenantId}/form?${classesQuery}` },
    };
    for (const end of ends) {
      if (end.direction === 'inverse') {
        const linkers = inverse?.get(end.relation.key) ?? [];
        links[end.name] = {
          href: `${self}/${end.name}`,
          ...(linkers.length > 0 ? { values: linkers.slice(0, INVERSE_VALUES) } : {}),
          ...(linkers.length > INVERSE_VALUES ? { more: true } : {}),
        };
        continue;
      }
      const values = (object.links[end.relation.key] ?? [])
        .map((id) => visible.get(id))
        .filter((ref): ref is LinkedRef => ref !== undefined);
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
    for (const field of fields) {
      const value = object.values[field.name];
      if (value === undefined || value === null || hidden?.has(field.name)) continue;
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
