/** The backend contract suite through the HTTP transport, against a gateway over PostgreSQL. */
import { describeEachBackend, POSTGRES } from './support/backends.js';
import { runContractOverHttp } from './support/contract-over-http.js';

describeEachBackend('contract over HTTP', runContractOverHttp, [POSTGRES]);
