/** @ojskit/client/testing: the worker contract suite and helpers for running it against any transport. */
export { runWorkerContract, WORKER_CONTRACT_SERVICES, type WorkerContractCase, type WorkerContractOptions, type WorkerContractSubject } from './worker-contract.js';
export { countingTransport, type TransportCalls } from './counting-transport.js';
export { runClientContract, type ClientContractCase, type ClientContractOptions } from './client-contract.js';
