/**
 * Model loading figures: the example CRM repository, and a generated repository of 500 classes
 * (each with fields, a relation to its neighbour and a formula), loaded from disk end to end.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadModelRepository } from '@odp/model-loader';
import { measureEngine } from './engine.js';
import type { EngineFigures } from './report.js';

function writeGeneratedRepository(dir: string, classes: number): void {
  mkdirSync(path.join(dir, 'classes'), { recursive: true });
  for (let i = 0; i < classes; i += 1) {
    const file = {
      version: 2,
      kind: 'class',
      class: `gen.thing${i}`,
      nameFormula: 'title',
      fields: [
        { name: 'title', type: 'TEXT', required: true },
        { name: 'amount', type: 'DECIMAL' },
        { name: 'rate', type: 'PERCENTAGE', default: 10 },
        { name: 'net', type: 'DECIMAL', formula: 'round(amount * (1 - rate / 100), 2)' },
        { name: 'startsOn', type: 'DATE' },
      ],
      relations: i === 0 ? [] : [{ name: 'previous', target: `gen.thing${i - 1}`, inverse: `next${i}` }],
    };
    writeFileSync(path.join(dir, 'classes', `thing${i}.json`), JSON.stringify(file));
  }
}

async function loadOnce(dir: string): Promise<void> {
  const result = await loadModelRepository(dir);
  if (!result.model) throw new Error(`The model in ${dir} was refused: ${JSON.stringify(result.issues[0])}`);
}

/** Loads of the example model and of a 500-class model, one after another for `seconds` each. */
export async function measureModelLoads(
  exampleDir: string,
  seconds: number,
): Promise<{ name: string; figures: EngineFigures }[]> {
  const generated = mkdtempSync(path.join(os.tmpdir(), 'odp-bench-model-'));
  try {
    writeGeneratedRepository(generated, 500);
    return [
      { name: 'load model: example CRM', figures: await measureEngine(seconds, () => loadOnce(exampleDir)) },
      { name: 'load model: 500 classes', figures: await measureEngine(seconds, () => loadOnce(generated)) },
    ];
  } finally {
    rmSync(generated, { recursive: true, force: true });
  }
}
