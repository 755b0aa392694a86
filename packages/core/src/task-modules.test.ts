import { sourceLoaderArgs, taskModule } from './task-modules.js';

describe('taskModule', () => {
  it('names the sibling module with the caller’s own extension', () => {
    expect(taskModule('file:///app/src/imports.ts', 'import-task').href).toBe(
      'file:///app/src/import-task.ts',
    );
    expect(taskModule('file:///app/dist/imports.js', 'import-task').href).toBe(
      'file:///app/dist/import-task.js',
    );
  });
});

describe('sourceLoaderArgs', () => {
  it('loads a TypeScript module through tsx with the source condition, built JavaScript as it is', () => {
    const [flag, loader, condition] = sourceLoaderArgs(__filename);
    expect(flag).toBe('--import');
    expect(loader).toMatch(/^file:\/\/.*tsx\/.*\.mjs$/);
    expect(condition).toBe('--conditions=@odp/source');
    expect(sourceLoaderArgs('/app/dist/task.js')).toEqual([]);
  });
});
