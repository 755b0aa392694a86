export * from './https-receiver.js';
export * from './smtp-receiver.js';
export * from './replicator-model.js';
