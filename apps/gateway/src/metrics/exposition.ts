/** Prometheus text exposition primitives: label sets, counters and histograms kept in memory. */

export type LabelSet = Record<string, string>;

function escapeLabel(value: string): string {
  return value.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/"/g, '\\"');
}

/** `{k="v",…}`, or nothing for an empty set. */
export function labelText(labels: LabelSet): string {
  const entries = Object.entries(labels);
  return entries.length === 0 ? '' : `{${entries.map(([k, v]) => `${k}="${escapeLabel(v)}"`).join(',')}}`;
}

/**
 * One label set object per distinct combination of values, so that series maps can key on the text built once
 * per combination: metrics are updated for every event, and rebuilding the text each time was the cost.
 */
export class LabelSets {
  private readonly sets = new Map<string, LabelSet>();
  constructor(private readonly names: readonly string[]) {}

  get(...values: string[]): LabelSet {
    const key = values.join('\u0000');
    let labels = this.sets.get(key);
    if (!labels) {
      labels = Object.fromEntries(this.names.map((name, i) => [name, values[i] ?? '']));
      this.sets.set(key, labels);
    }
    return labels;
  }
}

/** The exposition text of a label set, built once per set object. */
const texts = new WeakMap<LabelSet, string>();
function textOf(labels: LabelSet): string {
  let text = texts.get(labels);
  if (text === undefined) {
    text = labelText(labels);
    texts.set(labels, text);
  }
  return text;
}

export class Counter {
  private readonly values = new Map<string, number>();
  constructor(
    readonly name: string,
    readonly help: string,
  ) {}

  inc(labels: LabelSet, by = 1): void {
    const key = textOf(labels);
    this.values.set(key, (this.values.get(key) ?? 0) + by);
  }

  render(lines: string[]): void {
    lines.push(`# HELP ${this.name} ${this.help}`, `# TYPE ${this.name} counter`);
    for (const [labels, value] of this.values) lines.push(`${this.name}${labels} ${value}`);
  }
}

export class Histogram {
  private readonly series = new Map<string, { labels: LabelSet; buckets: number[]; sum: number; count: number }>();
  constructor(
    readonly name: string,
    readonly help: string,
    readonly bounds: readonly number[],
  ) {}

  observe(labels: LabelSet, value: number): void {
    const key = textOf(labels);
    let entry = this.series.get(key);
    if (!entry) {
      entry = { labels, buckets: this.bounds.map(() => 0), sum: 0, count: 0 };
      this.series.set(key, entry);
    }
    // Per-bucket counts; render() accumulates them into Prometheus' cumulative `le` buckets.
    const i = this.bounds.findIndex((bound) => value <= bound);
    if (i >= 0) entry.buckets[i]! += 1;
    entry.sum += value;
    entry.count += 1;
  }

  render(lines: string[]): void {
    lines.push(`# HELP ${this.name} ${this.help}`, `# TYPE ${this.name} histogram`);
    for (const { labels, buckets, sum, count } of this.series.values()) {
      let cumulative = 0;
      this.bounds.forEach((bound, i) => {
        cumulative += buckets[i]!;
        lines.push(`${this.name}_bucket${labelText({ ...labels, le: String(bound) })} ${cumulative}`);
      });
      lines.push(`${this.name}_bucket${labelText({ ...labels, le: '+Inf' })} ${count}`);
      lines.push(`${this.name}_sum${textOf(labels)} ${sum}`, `${this.name}_count${textOf(labels)} ${count}`);
    }
  }
}
