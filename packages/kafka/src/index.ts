/**
 * @ojskit/kafka — work in progress: Kafka as the dispatch log with Redis or PostgreSQL as the state store.
 * The driver is not written yet; this entry point exports the Kafka client port it will be built on.
 */
export * from './port/index.js';
