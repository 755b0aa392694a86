import { describeCoordinationContract } from './index.js';
import { createInProcessCoordination } from '@odp/core';

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
