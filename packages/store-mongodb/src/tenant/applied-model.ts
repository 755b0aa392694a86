/**
 * The model a tenant store derives its documents' index fields from, with the selection compiler
 * built for it. Queries and writes require one applied first.
 */
import type { Model } from '@odp/core';
import type { ObjectDoc } from './documents.js';
import { SelectionCompiler } from './query.js';
import type { Collection } from 'mongodb';

export class AppliedModel {
  private model: Model | undefined;
  private selectionCompiler: SelectionCompiler | undefined;

  constructor(private readonly objects: Collection<ObjectDoc>) {}

  /** Takes `model` into use (set by `applyModel`, which every query and write requires first). */
  use(model: Model): void {
    this.model = model;
    this.selectionCompiler = new SelectionCompiler(model, this.objects);
  }

  get current(): Model {
    this.require();
    return this.model as Model;
  }

  get compiler(): SelectionCompiler {
    this.require();
    return this.selectionCompiler as SelectionCompiler;
  }

  require(): void {
    if (this.model === undefined) throw new Error('applyModel must be called before queries and writes.');
  }
}
