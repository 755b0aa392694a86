import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { sourceLoaderArgs, startModuleThread, taskModule } from './task-modules.js';

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

describe('startModuleThread', () => {
  it('runs a TypeScript module in a thread', async () => {
    const thread = startModuleThread(
      pathToFileURL(path.join(__dirname, '..', 'test', 'isolated-tasks', 'thread-double.ts')),
    );
    try {
      const answer = new Promise((resolve, reject) => {
        thread.once('message', resolve);
        thread.once('error', reject);
      });
      thread.postMessage(21);
      expect(await answer).toBe(42);
    } finally {
      await thread.terminate();
    }
  });
});
