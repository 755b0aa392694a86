/** An isolated task for the tests of `isolated.ts`: answers its own process's nice value. */
import os from 'node:os';
import { serveIsolatedTask } from '../../src/isolated.js';

serveIsolatedTask(() => os.getPriority());
