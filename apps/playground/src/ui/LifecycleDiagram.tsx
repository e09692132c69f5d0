/**
 * The lifecycle as SVG, laid out from core's transition table, with live tokens. Tokens are drawn
 * imperatively on animation frames (a pool of circles), never through React state, so a burst costs the
 * frame nothing beyond the sampled tokens.
 */
import { JOB_STATES, type JobState } from '@ojskit/core';
import { TRANSITIONS } from '@ojskit/core/lifecycle';
import { useEffect, useMemo, useRef, useState } from 'react';
import { computeLayout, edgeKey, pointAt, type LaidOutEdge } from '../lifecycle/layout.js';
import type { LiveModel } from '../live/live-model.js';
import type { Counts } from '../live/state-counts.js';
import { usePolled, useReducedMotion } from './hooks.js';
import { hueStyle } from './state-colors.js';

const TOKEN_MS = 750;
/** Where a cancel may come from, for the legend: read from the table, like everything drawn here. */
const cancelFrom = [...new Set(TRANSITIONS.filter((t) => t.trigger === 'cancel' && t.from !== null).map((t) => t.from!))];
const MAX_ACTIVE_TOKENS = 240;
const FLASH_MS = 450;

interface Props {
  live: LiveModel;
  /** Queues whose counts are shown (all when empty). */
  queues: readonly string[];
  onSelectJob: (jobId: string) => void;
  title: string;
}

interface Token {
  el: SVGCircleElement;
  edge: LaidOutEdge;
  start: number;
}

export function LifecycleDiagram({ live, queues, onSelectJob, title }: Props) {
  const layout = useMemo(computeLayout, []);
  const edgesByKey = useMemo(() => new Map(layout.edges.map((e) => [e.key, e])), [layout]);
  const tokenLayer = useRef<SVGGElement>(null);
  const edgeRefs = useRef(new Map<string, SVGPathElement>());
  const reducedMotion = useReducedMotion();
  const [hover, setHover] = useState<LaidOutEdge | undefined>();
  const onSelect = useRef(onSelectJob);
  onSelect.current = onSelectJob;

  const countsKey = usePolled(() => `${live.counts.version}|${queues.join(',')}`);
  const counts: Counts = useMemo(() => live.counts.total(queues.length > 0 ? queues : undefined), [countsKey, live, queues]);

  useEffect(() => {
    const layer = tokenLayer.current;
    if (!layer) return;
    const active: Token[] = [];
    const pool: SVGCircleElement[] = [];
    const flashes = new Map<string, number>();
    let frame = 0;
    const tick = (now: number): void => {
      frame = requestAnimationFrame(tick);
      const { tokens } = live.takeFrame();
      for (const event of tokens) {
        const edge = edgesByKey.get(edgeKey(event.from, event.to));
        if (!edge) continue;
        flashes.set(edge.key, now);
        edgeRefs.current.get(edge.key)?.classList.add('hot');
        if (reducedMotion) continue;
        if (active.length >= MAX_ACTIVE_TOKENS) recycle(active.shift()!);
        const el = pool.pop() ?? createToken(layer);
        el.dataset['jobId'] = event.jobId;
        el.style.setProperty('--hue', getComputedHue(event.to));
        el.style.display = '';
        active.push({ el, edge, start: now });
      }
      for (let i = active.length - 1; i >= 0; i--) {
        const token = active[i]!;
        const t = (now - token.start) / TOKEN_MS;
        if (t >= 1) {
          recycle(token);
          active.splice(i, 1);
          continue;
        }
        const p = pointAt(token.edge.points, easeInOut(t));
        token.el.setAttribute('cx', p.x.toFixed(1));
        token.el.setAttribute('cy', p.y.toFixed(1));
      }
      for (const [key, at] of flashes) {
        if (now - at > FLASH_MS) {
          edgeRefs.current.get(key)?.classList.remove('hot');
          flashes.delete(key);
        }
      }
    };
    const recycle = (token: Token): void => {
      token.el.style.display = 'none';
      pool.push(token.el);
    };
    const onClick = (event: MouseEvent): void => {
      const id = (event.target as SVGElement).dataset?.['jobId'];
      if (id) onSelect.current(id);
    };
    layer.addEventListener('click', onClick);
    frame = requestAnimationFrame(tick);
    return () => {
      cancelAnimationFrame(frame);
      layer.removeEventListener('click', onClick);
      layer.replaceChildren();
    };
  }, [live, edgesByKey, reducedMotion]);

  const hoverMid = hover ? pointAt(hover.points, 0.5) : undefined;
  return (
    <figure className="diagram" aria-labelledby="diagram-title">
      <figcaption id="diagram-title" className="visually-hidden">
        {title}: the OJS job lifecycle drawn from the transition table in @ojskit/core, with live counts per state.
      </figcaption>
      <div className="diagram-canvas">
        <svg viewBox={`0 0 ${layout.width} ${layout.height}`} role="group" aria-label={`${title}: job lifecycle with live counts`} data-testid="lifecycle">
          <defs>
            <marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse">
              <path d="M0,0 L10,5 L0,10 z" className="arrowhead" />
            </marker>
          </defs>
          <g className="edges">
            {layout.edges.map((edge) => (
              <g key={edge.key} className={`edge${edge.to === edge.from ? ' loop' : ''}`}>
                <path
                  ref={(el) => {
                    if (el) edgeRefs.current.set(edge.key, el);
                    else edgeRefs.current.delete(edge.key);
                  }}
                  d={edge.path}
                  className={`edge-line ${edge.triggers.map((t) => `trigger-${t}`).join(' ')}`}
                  markerEnd="url(#arrow)"
                  data-edge={edge.key}
                />
                <path
                  d={edge.path}
                  className="edge-hit"
                  tabIndex={0}
                  role="button"
                  aria-label={`${edge.from} to ${edge.to}: ${edge.triggers.join(', ')}`}
                  onMouseEnter={() => setHover(edge)}
                  onMouseLeave={() => setHover(undefined)}
                  onFocus={() => setHover(edge)}
                  onBlur={() => setHover(undefined)}
                >
                  <title>{`${edge.from} → ${edge.to}: ${edge.triggers.join(', ')} (rule ${edge.rules.join(', ')})`}</title>
                </path>
              </g>
            ))}
          </g>
          <g className="nodes">
            {layout.nodes.map((node) => {
              const state = node.id === 'new' ? undefined : (node.id as JobState);
              return (
                <g
                  key={node.id}
                  className={`node${node.terminal ? ' terminal' : ''}${state ? '' : ' source'}`}
                  transform={`translate(${node.x - node.width / 2},${node.y - node.height / 2})`}
                  style={state ? hueStyle(state) : undefined}
                  data-node={node.id}
                >
                  {node.terminal && <rect className="terminal-ring" x={-4} y={-4} width={node.width + 8} height={node.height + 8} rx={12} />}
                  <rect width={node.width} height={node.height} rx={state ? 8 : 20} />
                  <text x={node.width / 2} y={state ? 16 : node.height / 2 + 4} textAnchor="middle" className="node-name">
                    {node.id === 'new' ? 'new job' : node.id}
                  </text>
                  {state && (
                    <text x={node.width / 2} y={32} textAnchor="middle" className="node-count" data-count={state}>
                      {Math.max(0, counts[state])}
                    </text>
                  )}
                </g>
              );
            })}
          </g>
          <g className="tokens" ref={tokenLayer} />
        </svg>
        {hover && hoverMid && (
          <div
            className="edge-tip"
            role="tooltip"
            data-testid="edge-tip"
            style={{ left: `${(hoverMid.x / layout.width) * 100}%`, top: `${(hoverMid.y / layout.height) * 100}%` }}
          >
            <strong>
              {hover.from === 'new' ? 'new job' : hover.from} → {hover.to}
            </strong>
            <span>
              {hover.triggers.map((t) => t.replace(/_/g, ' ')).join(' · ')} <small>(rule {hover.rules.join(', ')})</small>
            </span>
          </div>
        )}
      </div>
      <p className="legend">
        <span className="legend-terminal">Double border</span>: terminal ({JOB_STATES.filter((s) => layout.nodes.find((n) => n.id === s)?.terminal).join(', ')}
        ). <span className="legend-dashed">Dashed</span>: cancel (from {cancelFrom.join(', ')}). <span className="legend-dotted">Dotted</span>: expiry. Hover or
        focus an edge for its trigger.
      </p>
    </figure>
  );
}

function createToken(layer: SVGGElement): SVGCircleElement {
  const el = document.createElementNS('http://www.w3.org/2000/svg', 'circle');
  el.setAttribute('r', '5');
  el.setAttribute('class', 'token');
  layer.appendChild(el);
  return el;
}

const hueCache = new Map<JobState, string>();
function getComputedHue(state: JobState): string {
  let hue = hueCache.get(state);
  if (hue === undefined) hueCache.set(state, (hue = hueStyle(state)['--hue']!));
  return hue;
}

const easeInOut = (t: number): number => (t < 0.5 ? 2 * t * t : 1 - (-2 * t + 2) ** 2 / 2);
