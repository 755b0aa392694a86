export { JobRunner } from './runner.js';
export type { JobHandler, JobLog, JobOutcome, JobRunnerDeps } from './runner.js';
export { SERVICE_OF_GATEWAY, gatewayHandler, replicationFlushHandler } from './gateway-handler.js';
export type { GatewayHandlerDeps } from './gateway-handler.js';
