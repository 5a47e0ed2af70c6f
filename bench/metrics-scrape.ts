/*
 * Scrapes a running agentline's GET /metrics during a delivery burst, as Prometheus would, so that
 * the benchmark shows what an operator sees move: deliveries sent, the outbox draining, delivery
 * lag, and what a scrape costs under load.
 */
import { get } from 'node:http';
import { table } from './report';

/** One scrape, reduced to the series an operator would graph during a burst. */
export interface Scrape {
  /** Seconds since the burst was due (negative: before). */
  at: number;
  /** How long the scrape took (ms): the outbox gauge queries the database. */
  tookMs: number;
  status: number;
  sent: number;
  dispatchedOccurrences: number;
  outboxPendingDue: number;
  outboxSending: number;
  deliveryLagP99: string;
  eventLoopLagP99Ms: number;
}

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** The text exposition format, enough of it for the series above (no escapes in our labels). */
export function parseExposition(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    const match = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match) continue;
    const labels: Record<string, string> = {};
    for (const [, key, value] of (match[2] ?? '').matchAll(/(\w+)="([^"]*)"/g)) labels[key] = value;
    samples.push({ name: match[1], labels, value: Number(match[3]) });
  }
  return samples;
}

const sum = (samples: Sample[], name: string, labels: Record<string, string> = {}): number =>
  samples
    .filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))
    .reduce((total, s) => total + s.value, 0);

/** The bucket bound under which 99% of the histogram's observations fall (as `histogram_quantile` would bound it). */
function p99Bound(samples: Sample[], histogram: string): string {
  const buckets = new Map<string, number>();
  for (const s of samples.filter((x) => x.name === `${histogram}_bucket`))
    buckets.set(s.labels.le, (buckets.get(s.labels.le) ?? 0) + s.value);
  const total = buckets.get('+Inf') ?? 0;
  if (total === 0) return '–';
  const bound = [...buckets.entries()]
    .map(([le, count]) => ({ le: le === '+Inf' ? Infinity : Number(le), count }))
    .sort((a, b) => a.le - b.le)
    .find(({ count }) => count >= total * 0.99);
  return bound && Number.isFinite(bound.le) ? `≤ ${bound.le} s` : '> 600 s';
}

function scrapeOnce(port: number, dueAt: number): Promise<Scrape> {
  const started = Date.now();
  return new Promise((done) => {
    const failed = (status: number) =>
      done({
        at: (started - dueAt) / 1000,
        tookMs: Date.now() - started,
        status,
        sent: NaN,
        dispatchedOccurrences: NaN,
        outboxPendingDue: NaN,
        outboxSending: NaN,
        deliveryLagP99: '–',
        eventLoopLagP99Ms: NaN,
      });
    get({ host: '127.0.0.1', port, path: '/metrics' }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => {
        if (res.statusCode !== 200) return failed(res.statusCode ?? 0);
        const samples = parseExposition(text);
        done({
          at: (started - dueAt) / 1000,
          tookMs: Date.now() - started,
          status: 200,
          sent: sum(samples, 'agentline_deliveries_total', { outcome: 'sent' }),
          dispatchedOccurrences: sum(samples, 'agentline_dispatch_lag_seconds_count'),
          outboxPendingDue: sum(samples, 'agentline_outbox_deliveries', {
            status: 'pending',
            due: 'true',
          }),
          outboxSending: sum(samples, 'agentline_outbox_deliveries', { status: 'sending' }),
          deliveryLagP99: p99Bound(samples, 'agentline_delivery_lag_seconds'),
          eventLoopLagP99Ms: Math.round(sum(samples, 'nodejs_eventloop_lag_p99_seconds') * 1000),
        });
      });
    }).on('error', () => failed(0));
  });
}

/** Scrapes every `everyMs` until `stop()`, which resolves with every scrape (and a last one). */
export function scrapeDuring(
  port: number,
  dueAt: number,
  everyMs = 1_000,
): { stop: () => Promise<Scrape[]> } {
  const scrapes: Scrape[] = [];
  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      scrapes.push(await scrapeOnce(port, dueAt));
      await new Promise((done) => setTimeout(done, everyMs));
    }
  })();
  return {
    stop: async () => {
      stopped = true;
      await loop;
      scrapes.push(await scrapeOnce(port, dueAt));
      return scrapes;
    },
  };
}

/** About `rows` scrapes spread over the run (the first, the last, and evenly between). */
export function scrapeTable(scrapes: Scrape[], rows = 10): string {
  const step = Math.max(1, (scrapes.length - 1) / (rows - 1));
  const picked = [...new Set(Array.from({ length: rows }, (_, i) => Math.round(i * step)))].filter(
    (i) => i < scrapes.length,
  );
  if (picked[picked.length - 1] !== scrapes.length - 1) picked.push(scrapes.length - 1);
  const took = scrapes.map((s) => s.tookMs).sort((a, b) => a - b);
  const failed = scrapes.filter((s) => s.status !== 200).length;
  return [
    table(
      [
        's since due',
        'sent (counter)',
        'occurrences dispatched',
        'outbox pending and due',
        'outbox sending',
        'delivery lag p99 (bucket)',
        'event-loop lag p99 (ms)',
        'scrape (ms)',
      ],
      picked.map((i) => {
        const s = scrapes[i];
        return [
          s.at.toFixed(1),
          s.sent,
          s.dispatchedOccurrences,
          s.outboxPendingDue,
          s.outboxSending,
          s.deliveryLagP99,
          s.eventLoopLagP99Ms,
          s.tookMs,
        ];
      }),
    ),
    '',
    `${scrapes.length} scrapes, one a second; ${failed} failed; a scrape took ${took[0]} to ${took[took.length - 1]} ms (median ${took[Math.floor(took.length / 2)]}).`,
  ].join('\n');
}
