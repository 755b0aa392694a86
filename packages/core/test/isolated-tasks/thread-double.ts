/** A thread module for the tests of `task-modules.ts`: answers each number it gets doubled. */
import { parentPort } from 'node:worker_threads';

const double = (n: number): number => n * 2;

parentPort?.on('message', (n: number) => parentPort?.postMessage(double(n)));
