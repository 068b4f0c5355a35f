/** The client library controllers (and tests, tools) use to talk to an atrium server. */
export * from './resource.js';
export * from './rest-client.js';
export * from './watch-stream.js';
export * from './store.js';
export * from './informer.js';
export * from './work-queue.js';
export * from './informer-factory.js';
export * from './discovery.js';
