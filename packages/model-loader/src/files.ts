import type { AclOperation, DataType, ScriptTrigger } from '@odp/core';

/** Model files as written in format 2, after their JSON Schema accepted them. */

export interface FieldFile {
  readonly name: string;
  readonly type: DataType;
  readonly required?: boolean;
  readonly multiple?: boolean;
  readonly default?: unknown;
  readonly formula?: string | null;
  readonly onlyWhenMissing?: boolean;
  readonly hidden?: boolean;
  readonly history?: boolean;
  readonly list?: string | null;
  readonly unique?: boolean;
  readonly label?: string;
  readonly description?: string;
}

export interface RelationFile {
  readonly name: string;
  readonly target: string;
  readonly multiple?: boolean;
  readonly required?: boolean;
  readonly cascadeDelete?: boolean;
  readonly inverse?: string;
  readonly label?: string;
}

export interface ScriptParameterFile {
  readonly name: string;
  readonly value?: string;
  readonly formula?: string;
  readonly templateFile?: string;
}

export interface ScriptFile {
  readonly name: string;
  readonly type: 'CONSUMER_GATEWAY' | 'SET_VALUES';
  readonly gateway?: 'Mail' | 'UserInvitation' | 'Webhook' | 'DatastoreReplicator';
  readonly scope?: 'OBJECT';
  readonly trigger: readonly ScriptTrigger[];
  readonly condition?: string;
  readonly parameters?: readonly ScriptParameterFile[];
  readonly set?: Readonly<Record<string, string>>;
}

export interface ReportFile {
  readonly name: string;
  readonly template: string;
  readonly format: 'pdf' | 'html';
  readonly languages?: readonly string[];
}

export interface ClassFile {
  readonly version: number;
  readonly kind: 'class';
  readonly class: string;
  readonly plural?: string;
  readonly extends?: readonly string[];
  readonly abstract?: boolean;
  readonly attachableTo?: readonly string[] | null;
  readonly nameFormula?: string;
  readonly label?: string;
  readonly fields?: readonly FieldFile[];
  readonly relations?: readonly RelationFile[];
  readonly scripts?: readonly ScriptFile[];
  readonly reports?: readonly ReportFile[];
}

export interface ListFile {
  readonly list: string;
  readonly values: readonly { readonly key: string; readonly label: string }[];
}

export interface AccessControlFile {
  readonly name: string;
  readonly anchor?: string;
  readonly grantToUsers?: readonly { readonly id: string; readonly relation: string }[];
  readonly nodes: readonly {
    readonly id: string;
    readonly path?: readonly string[];
    readonly class?: string;
    readonly operations: readonly AclOperation[];
  }[];
}

export interface RolesFile {
  readonly roles: readonly {
    readonly name: string;
    readonly grants: readonly {
      readonly definition: string;
      readonly operations?: readonly AclOperation[];
    }[];
  }[];
}

export interface TenantFile {
  readonly generalSearchClasses?: readonly string[];
}

export interface MigrationFile {
  readonly class?: string;
  readonly migration: Record<string, unknown>;
}

export interface DataFile {
  readonly objects: readonly ({ readonly _class: string; readonly _id: string } & Record<string, unknown>)[];
}

/** A validated file with the repository path it came from. */
export interface Sourced<T> {
  readonly file: string;
  readonly doc: T;
}
