/** @ojskit/core/testing: what tests of code built on core use: a clock they drive, events they build. */
export { ManualClock } from '../clock.js';
export { makeEvent } from '../events/event.js';
