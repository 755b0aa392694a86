export * from './https-receiver.js';
