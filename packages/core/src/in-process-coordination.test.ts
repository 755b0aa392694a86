import { describeCoordinationContract } from './contract/index.js';
import { createInProcessCoordination } from './in-process-coordination.js';

/** One process: both "instances" of the contract are the same object. */
let shared = createInProcessCoordination();
describeCoordinationContract('in-process', {
  async open() {
    return shared;
  },
});
afterEach(() => {
  shared = createInProcessCoordination();
});
