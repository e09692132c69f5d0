// Type-checked as CommonJS (`module: nodenext`): TypeScript >= 5.8 allows require() of these ES modules, as
// Node >= 20.19 does.
import client = require('@ojskit/client');
import memory = require('@ojskit/memory');

const api = client.inProcess(new memory.MemoryDriver());
const queue: string = new client.Client(api) instanceof client.Client ? 'email' : 'never';
export = queue;
