import type { Response } from 'express';

/**
 * Resolves once `res` has sent what it buffered (`drain`), or has closed (the client went away):
 * what a writer of a large or long answer awaits after a `write` that returned false.
 */
export function drained(res: Response): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });
}
