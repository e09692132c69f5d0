/** The backend contract suite through the HTTP transport, against a gateway over memory. */
import { MEMORY } from './support/backends.js';
import { runContractOverHttp } from './support/contract-over-http.js';

runContractOverHttp(MEMORY);
