/** The MANUAL gateway scripts of an object: which there are, and a run of one (queued as a job). */
import { NotFoundError } from '@odp/core';
import type { Account, NewJob } from '@odp/core';
import type { DataServiceDeps } from '../deps.js';
import { gatewayScripts } from '../scripts.js';
import type { ObjectWriter } from '../writes/object-writer.js';
import type { ObjectReads } from './reads.js';

export class ScriptRuns {
  constructor(
    private readonly deps: DataServiceDeps,
    private readonly reads: ObjectReads,
    private readonly writer: ObjectWriter,
  ) {}

  /**
   * The names of the MANUAL gateway scripts of the classes of object `id` (as `className`
   * addresses it, when given), in declaration order. NotFoundError when the object is not readable.
   */
  async manual(account: Account, id: string, className?: string): Promise<string[]> {
    const object = await this.reads.get(account, id, className);
    return [
      ...new Set(gatewayScripts(this.deps.model, object.classes, 'MANUAL').map((script) => script.name)),
    ];
  }

  /**
   * Queues the MANUAL gateway script `scriptName` of object `id`. NotFoundError when the object is
   * not readable or its classes declare no such gateway script with trigger MANUAL; 403 without
   * record-level WRITE. Resolves the queued job, or null when the script's condition is false for
   * the object (nothing is queued).
   */
  async run(account: Account, id: string, scriptName: string, className?: string): Promise<NewJob | null> {
    const object = await this.reads.get(account, id, className);
    const script = gatewayScripts(this.deps.model, object.classes, 'MANUAL').find(
      (candidate) => candidate.name === scriptName,
    );
    if (!script) throw new NotFoundError('No such script.');
    return this.writer.runScript(account, object, script);
  }
}
