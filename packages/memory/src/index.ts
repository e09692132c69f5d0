/** @ojskit/memory: the in-process ojskit driver, the reference backend. */
export { MemoryDriver } from './memory-driver.js';
