export { JobRunner } from './runner.js';
export type { JobHandler, JobLog, JobOutcome, JobRunnerDeps } from './runner.js';
export { gatewayHandler, replicationFlushHandler } from './gateway-handler.js';
export type { GatewayHandlerDeps } from './gateway-handler.js';
