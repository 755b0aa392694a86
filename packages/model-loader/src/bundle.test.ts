import path from 'node:path';
import { ValidationError } from '@odp/core';
import { bundleOf, contentOfBundle, loadModelBundle, modelCandidate, readRepository } from './index.js';

const EXAMPLE = path.resolve(__dirname, '../../../examples/models/crm');

describe('model bundles (a model version as the registry stores it)', () => {
  it('round-trips a repository: same files, same hash, same model', async () => {
    const content = await readRepository(EXAMPLE);
    const bundle = bundleOf(content);
    expect(bundle.hash).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(bundle.bytes).toBe(Buffer.byteLength(bundle.text));
    const again = contentOfBundle(bundle.text);
    expect(again.modelFiles.map((f) => f.path)).toEqual(content.modelFiles.map((f) => f.path));
    expect(again.templateFiles).toEqual(content.templateFiles);
    expect(bundleOf(again)).toEqual(bundle);
    const loaded = loadModelBundle(bundle.text);
    expect(loaded.model?.classes.has('crm.invoice')).toBe(true);
  });

  it('refuses a model larger than the version cap, naming the variable, and bundles nothing', async () => {
    const content = await readRepository(EXAMPLE);
    const fits = modelCandidate(content, 10 * 1024 * 1024);
    expect(fits.bundle).toBeDefined();
    const tooLarge = modelCandidate(content, 1000);
    expect(tooLarge.bundle).toBeUndefined();
    expect(tooLarge.result.model).toBeUndefined();
    expect(tooLarge.result.issues[0]).toMatchObject({ severity: 'ERROR', file: '', path: '' });
    expect(tooLarge.result.issues[0]?.message).toContain('ODP_MAX_MODEL_VERSION_BYTES');
  });

  it('refuses stored text that is not a bundle', () => {
    expect(() => contentOfBundle('not json')).toThrow(ValidationError);
    expect(() => contentOfBundle('{"format":1,"files":{"a.json":1}}')).toThrow(ValidationError);
  });
});
