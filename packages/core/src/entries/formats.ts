/** @ojskit/core/formats: OJS's wire formats: UUIDv7 ids, ISO-8601 durations and timestamps, "did you mean" names. */
export { UUIDV7_PATTERN, isUuidV7, newId, newRequestId } from '../formats/ids.js';
export * from '../formats/durations.js';
export * from '../formats/timestamps.js';
export * from '../formats/nearest-name.js';
