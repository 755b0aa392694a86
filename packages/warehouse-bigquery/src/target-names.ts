/**
 * Which project, dataset and table names BigQuery can have (Google's naming rules, narrowed to
 * what needs no quoting questions): a target outside them fails every write, so the replicator
 * fails it for good instead of retrying.
 */
import type { WarehouseTarget } from '@odp/core';

/**
 * A project id: 6 to 30 lowercase letters, digits and hyphens, starting with a letter, not ending
 * with a hyphen; optionally after a domain (`example.com:project`).
 */
const PROJECT = /^(?:[a-z0-9][a-z0-9.-]{0,60}[a-z0-9]:)?[a-z][a-z0-9-]{4,28}[a-z0-9]$/;
/** A dataset: letters, digits and underscores, at most 1024. */
const DATASET = /^[A-Za-z0-9_]{1,1024}$/;
/** A table: letters, digits and underscores, at most 1024 (BigQuery allows more; kept portable). */
const TABLE = /^[A-Za-z0-9_]{1,1024}$/;

export type TargetNames = Pick<WarehouseTarget, 'projectId' | 'dataset' | 'table'>;

/** Why BigQuery can never have this target, naming the parameter; null when it can. */
export function bigQueryTargetProblem(target: TargetNames): string | null {
  if (!PROJECT.test(target.projectId))
    return `_projectId '${target.projectId}' is not a Google Cloud project id (6 to 30 lowercase letters, digits and '-', starting with a letter)`;
  if (!DATASET.test(target.dataset))
    return `_dataset '${target.dataset}' is not a BigQuery dataset name (letters, digits, '_')`;
  if (!TABLE.test(target.table))
    return `_table '${target.table}' is not a BigQuery table name (letters, digits, '_')`;
  return null;
}

/** The table's path in GoogleSQL, quoted: `` `project.dataset.table` ``. */
export function tablePath(target: TargetNames): string {
  return `\`${target.projectId}.${target.dataset}.${target.table}\``;
}
