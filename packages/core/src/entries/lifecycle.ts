/**
 * @ojskit/core/lifecycle: the lifecycle as data: states, the transition table, the state sets and roles, each
 * transition's effect, how the systems OJS is modelled on support each transition, and their behaviours ojskit has or declines.
 */
export * from '../lifecycle/states.js';
export * from '../lifecycle/transitions.js';
export * from '../lifecycle/sets.js';
export * from '../lifecycle/effects.js';
export * from '../lifecycle/universal-model.js';
export * from '../lifecycle/borrowed-behaviours.js';
