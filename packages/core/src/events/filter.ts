/** What an event subscriber or poller asks for. */

/** Filters for event subscriptions and polling (AND-ed). */
export interface EventFilter {
  /** Event types; an entry ending in `*` matches by prefix (`job.*`). */
  types?: string[];
  queues?: string[];
  jobTypes?: string[];
  jobId?: string;
}
