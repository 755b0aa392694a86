/**
 * The resolved, immutable model of one tenant, as produced by `@odp/model-loader` from a model
 * repository (see docs/model-format.md). Everything here is already validated and resolved:
 * consumers never re-check references, inheritance or plural names.
 *
 * Class names are qualified (`crm.company`); REST names are plurals (`companies`).
 */

export const DATA_TYPES = [
  'TEXT',
  'TEXTBLOCK',
  'LONGTEXT',
  'EMAIL',
  'INTEGER',
  'DECIMAL',
  'CURRENCY',
  'PERCENTAGE',
  'BOOLEAN',
  'DATE',
  'DATETIME',
  'TIME',
  'LIST',
  'JSON',
  'SECRET',
  'ARRAY',
  'FILE',
  'IMAGE',
] as const;
export type DataType = (typeof DATA_TYPES)[number];

/** Types that are not indexed: never filtered, sorted or aggregated on. */
export const NON_INDEXED_TYPES: ReadonlySet<DataType> = new Set(['LONGTEXT', 'JSON', 'SECRET', 'ARRAY']);

/**
 * How deeply arrays and objects may nest in a JSON request body (the body itself being level 1) and
 * in a stored JSON field value, so recursive serialisation and SQLite's JSON functions (which refuse
 * 1000 levels) never meet a deeper value (docs/data-api.md, Create and patch).
 */
export const MAX_JSON_DEPTH = 64;
/** Types left out of the full-text index. */
export const NON_SEARCHABLE_TYPES: ReadonlySet<DataType> = new Set([
  'LONGTEXT',
  'JSON',
  'SECRET',
  'FILE',
  'IMAGE',
]);
/** Types that aggregations (sum, avg, count) apply to. */
export const NUMERIC_TYPES: ReadonlySet<DataType> = new Set(['INTEGER', 'DECIMAL', 'CURRENCY', 'PERCENTAGE']);

/** A formula as written in the model, with its parsed form (see `@odp/formulas`). */
export interface Formula {
  readonly source: string;
  readonly ast: FormulaNode;
}

/** The formula syntax tree: a restricted JavaScript expression grammar. */
export type FormulaNode =
  | { readonly kind: 'literal'; readonly value: string | number | boolean | null }
  | { readonly kind: 'identifier'; readonly name: string }
  | { readonly kind: 'member'; readonly object: FormulaNode; readonly property: string }
  | { readonly kind: 'call'; readonly callee: string; readonly args: readonly FormulaNode[] }
  | { readonly kind: 'unary'; readonly operator: '!' | '-'; readonly argument: FormulaNode }
  | {
      readonly kind: 'binary';
      readonly operator:
        '+' | '-' | '*' | '/' | '%' | '==' | '!=' | '<' | '<=' | '>' | '>=' | '&&' | '||' | '??';
      readonly left: FormulaNode;
      readonly right: FormulaNode;
    }
  | {
      readonly kind: 'conditional';
      readonly test: FormulaNode;
      readonly consequent: FormulaNode;
      readonly alternate: FormulaNode;
    };

export interface FieldDef {
  readonly name: string;
  readonly type: DataType;
  readonly required: boolean;
  readonly multiple: boolean;
  /** A literal default, or a formula default; applied to a required field left empty. */
  readonly default?: { readonly value: unknown } | { readonly formula: Formula };
  readonly formula?: Formula;
  readonly onlyWhenMissing: boolean;
  readonly hidden: boolean;
  readonly history: boolean;
  /** Qualified list name for LIST fields. */
  readonly list?: string;
  readonly unique: boolean;
  readonly label?: string;
  /** Qualified name of the class that declares the field. */
  readonly declaredOn: string;
}

/** A relation as declared on its class (the settable, forward side). */
export interface RelationDef {
  readonly name: string;
  /** Qualified name of the target class. */
  readonly target: string;
  readonly multiple: boolean;
  readonly required: boolean;
  readonly cascadeDelete: boolean;
  /** Name of the read-only other side, as seen from the target. */
  readonly inverse: string;
  /** Qualified name of the declaring class. */
  readonly declaredOn: string;
  /** Stable storage key of the relation: `<declaredOn>#<name>`. Links are stored under it. */
  readonly key: string;
}

/**
 * A relation as seen from one class: either its forward side (settable) or its inverse side
 * (read-only, multi-valued). `name` is the key used in `_links`, filters and related paths.
 */
export interface RelationEnd {
  readonly name: string;
  readonly direction: 'forward' | 'inverse';
  readonly relation: RelationDef;
  /** Qualified name of the class on the other end. */
  readonly otherClass: string;
  /** Whether this side holds several links (always true for an inverse side). */
  readonly multiple: boolean;
}

export type ScriptTrigger = 'MANUAL' | 'CREATE' | 'UPDATE' | 'DELETE';

export interface ScriptParameter {
  readonly name: string;
  readonly value?: string;
  readonly formula?: Formula;
  /** Path relative to the repository root. */
  readonly templateFile?: string;
}

export type ScriptDef =
  | {
      readonly type: 'CONSUMER_GATEWAY';
      readonly name: string;
      readonly gateway: 'Mail' | 'UserInvitation' | 'Webhook' | 'DatastoreReplicator';
      readonly scope: 'OBJECT';
      readonly trigger: readonly ScriptTrigger[];
      readonly condition?: Formula;
      readonly parameters: readonly ScriptParameter[];
      readonly declaredOn: string;
    }
  | {
      readonly type: 'SET_VALUES';
      readonly name: string;
      readonly trigger: readonly ScriptTrigger[];
      readonly condition?: Formula;
      readonly set: Readonly<Record<string, Formula>>;
      readonly declaredOn: string;
    };

export interface ReportDef {
  readonly name: string;
  readonly template: string;
  readonly format: 'pdf' | 'html';
  readonly languages: readonly string[];
}

export interface ClassDef {
  /** Qualified name, `<package>.<name>`. */
  readonly name: string;
  readonly plural: string;
  /** Direct parents as declared. */
  readonly extends: readonly string[];
  /** This class and every ancestor, transitively (self first). */
  readonly ancestors: readonly string[];
  /** Every class that has this class among its ancestors, self included. */
  readonly descendants: readonly string[];
  readonly abstract: boolean;
  /** For role classes: the classes an object must be (or inherit from) to gain this one. */
  readonly attachableTo: readonly string[] | null;
  readonly nameFormula?: Formula;
  /** Own and inherited fields, by name. */
  readonly fields: ReadonlyMap<string, FieldDef>;
  /** Own and inherited forward relations, and inverse sides of relations targeting this class or an ancestor, by name. */
  readonly relations: ReadonlyMap<string, RelationEnd>;
  readonly scripts: readonly ScriptDef[];
  readonly reports: readonly ReportDef[];
  /** Whether the class is one of the built-in `system.*` classes. */
  readonly system: boolean;
}

export interface ListDef {
  readonly name: string;
  readonly values: readonly { readonly key: string; readonly label: string }[];
}

export type AclOperation = 'READ' | 'WRITE' | 'CREATE' | 'DELETE';

export interface AclNodeDef {
  readonly id: string;
  /** Anchored definitions: relation names from the anchor (empty for the root node). */
  readonly path?: readonly string[];
  /** Resolved steps of `path`, one per relation name. */
  readonly steps?: readonly RelationEnd[];
  /** Path-less definitions: the class the node applies to. Anchored: the class the path ends on. */
  readonly appliesTo: string;
  readonly operations: readonly AclOperation[];
}

export interface AccessControlDef {
  readonly name: string;
  /** Qualified anchor class; absent for a path-less definition. */
  readonly anchor?: string;
  /** Steps from the anchor to the holders; empty for a zero-hop definition. */
  readonly grantToUsers: readonly { readonly id: string; readonly relation: RelationEnd }[];
  readonly nodes: readonly AclNodeDef[];
}

export interface RoleDef {
  readonly name: string;
  readonly grants: readonly { readonly definition: string; readonly operations?: readonly AclOperation[] }[];
}

/** One object of the model's default data, with `{tenant}` left in hrefs for the loader of the data. */
export interface DefaultObject {
  readonly file: string;
  /** Plural REST name of the object's class. */
  readonly plural: string;
  readonly id: string;
  readonly body: Readonly<Record<string, unknown>>;
}

export interface TenantSettings {
  readonly generalSearchClasses?: readonly string[];
}

export interface Model {
  readonly classes: ReadonlyMap<string, ClassDef>;
  /** Classes by plural REST name. */
  readonly byPlural: ReadonlyMap<string, ClassDef>;
  readonly lists: ReadonlyMap<string, ListDef>;
  readonly accessControl: readonly AccessControlDef[];
  readonly roles: readonly RoleDef[];
  readonly settings: TenantSettings;
  readonly defaultData: readonly DefaultObject[];
  /** The migration definition of the model, when it has one (beta). */
  readonly migration?: unknown;
  /** Handlebars templates by repository-relative path. */
  readonly templates: ReadonlyMap<string, string>;
}

export type IssueSeverity = 'ERROR' | 'WARNING' | 'INFO';

/** A finding while loading a model: `file` relative to the repository root, `path` a JSON pointer. */
export interface ModelIssue {
  readonly severity: IssueSeverity;
  readonly file: string;
  readonly path: string;
  readonly message: string;
}
