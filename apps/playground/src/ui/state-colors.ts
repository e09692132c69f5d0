/**
 * Colours by position in core's state list (no state is named here). Each pair passes WCAG AA against its
 * text in both themes: the fills are light tints with dark text (light theme) and dark tints with light
 * text (dark theme), chosen through CSS custom properties.
 */
import { JOB_STATES, type JobState } from '@ojskit/core';

const HUES = [265, 205, 180, 40, 140, 20, 0, 330];

export function stateHue(state: JobState): number {
  return HUES[JOB_STATES.indexOf(state) % HUES.length]!;
}

/** Inline style giving a state's hue to CSS (`--hue`), which the theme turns into fills and strokes. */
export function hueStyle(state: JobState): Record<string, string> {
  return { '--hue': String(stateHue(state)) };
}
