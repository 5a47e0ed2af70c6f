/*
 * The bare outbox drain that the delivery benchmark measures agentline against, side by side in one
 * run: what any outbox has to do and nothing else. Run as its own process by bench/delivery.ts, on
 * the same `deliveries` table (agentline's migrations, the same seeded rows) and against the same
 * fake Graph API:
 *
 * - claims due `pending` rows with `FOR UPDATE SKIP LOCKED`, marking them `sending` with an owner
 *   and a lease (one statement, which also reads each row's follow-up and channel);
 * - keeps CONCURRENCY calls in flight (claiming again once a quarter of the senders are free), over
 *   keep-alive `node:http` connections; decrypts each channel's token (AES-256-GCM) once;
 * - builds the message (the prompt with {{title}} filled in) and posts it;
 * - group-commits outcomes: each sender waits until its outcome is durable before it takes the
 *   next message (a crash repeats at most the calls in flight), outcomes that arrive during a
 *   write go together in the next.
 *
 * Not here, because they are agentline's: heartbeats and take-over, the attempt log, the
 * per-channel rate limit, opt-outs and the 24-hour window, pause/delete checks, retries with
 * backoff, agent events, the dispatch of follow-ups into the outbox (the benchmark inserts this
 * process's rows already due).
 *
 * Env: DATABASE_URL, GRAPH_API_URL (version path included), ENCRYPTION_KEY (base64, 32 bytes),
 * CONCURRENCY. Prints `ready` once connected; stops on SIGTERM.
 */
import { createDecipheriv } from 'node:crypto';
import { Agent, request } from 'node:http';
import { Pool } from 'pg';

const concurrency = Number(process.env.CONCURRENCY ?? 128);
const graph = new URL(process.env.GRAPH_API_URL ?? 'http://127.0.0.1:1/v23.0');
const key = Buffer.from(process.env.ENCRYPTION_KEY ?? '', 'base64');
const owner = `bare-${process.pid}`;
const pool = new Pool({ connectionString: process.env.DATABASE_URL, max: 4 });
const agent = new Agent({ keepAlive: true, maxSockets: concurrency });

interface Claimed {
  id: string;
  phone: string;
  channel_id: string;
  number_id: string;
  access_token_encrypted: string;
  prompt: string;
  title: string;
}

interface Outcome {
  id: string;
  status: 'sent' | 'pending';
  wamid: string | null;
  at: string;
  error: string | null;
}

const CLAIM = `
  WITH due AS (
    SELECT id FROM deliveries
     WHERE status = 'pending' AND next_attempt_at <= now()
     ORDER BY next_attempt_at LIMIT $1 FOR UPDATE SKIP LOCKED),
  claimed AS (
    UPDATE deliveries d SET status = 'sending', lease_owner = $2,
           lease_expires_at = now() + interval '60 seconds', attempts = d.attempts + 1, updated_at = now()
      FROM due WHERE d.id = due.id
  RETURNING d.id, d.phone, d.channel_id, d.follow_up_id)
  SELECT c.id, c.phone, c.channel_id, ch.number_id, ch.access_token_encrypted, f.prompt, f.title
    FROM claimed c JOIN whatsapp_channels ch ON ch.id = c.channel_id
    JOIN follow_ups f ON f.id = c.follow_up_id`;

const RECORD = `
  UPDATE deliveries d
     SET status = v.status, wa_message_id = v.wamid, sent_at = CASE WHEN v.status = 'sent' THEN v.at END,
         next_attempt_at = CASE WHEN v.status = 'pending' THEN v.at + interval '1 second' ELSE d.next_attempt_at END,
         last_error_code = v.error, lease_owner = NULL, lease_expires_at = NULL, updated_at = v.at
    FROM jsonb_to_recordset($1::jsonb) AS v(id uuid, status text, wamid text, at timestamptz, error text)
   WHERE d.id = v.id AND d.id = ANY($3::uuid[]) AND d.lease_owner = $2 AND d.status = 'sending'`;

/** Each channel's token, decrypted once (`v1.<key id>.<iv>.<tag>.<ciphertext>`, AAD row and column). */
const tokens = new Map<string, string>();
function tokenOf(row: Claimed): string {
  let token = tokens.get(row.channel_id);
  if (token === undefined) {
    const [, , iv, tag, body] = row.access_token_encrypted.split('.');
    const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
    decipher.setAAD(Buffer.from(`whatsapp_channels:${row.channel_id}:access_token`));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    token = Buffer.concat([
      decipher.update(Buffer.from(body, 'base64url')),
      decipher.final(),
    ]).toString();
    tokens.set(row.channel_id, token);
  }
  return token;
}

function post(
  path: string,
  token: string,
  body: string,
): Promise<{ status: number; text: string }> {
  return new Promise((resolve) => {
    const req = request(
      {
        agent,
        host: graph.hostname,
        port: graph.port,
        path,
        method: 'POST',
        headers: {
          authorization: `Bearer ${token}`,
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
        },
        timeout: 10_000,
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
        res.on('error', () => resolve({ status: 0, text: '' }));
      },
    );
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', () => resolve({ status: 0, text: '' }));
    req.end(body);
  });
}

/** Group commit: one UPDATE for everything that arrived while the previous one was written. */
let queue: { outcome: Outcome; done: () => void }[] = [];
let writing = false;
function record(outcome: Outcome): Promise<void> {
  return new Promise((done) => {
    queue.push({ outcome, done });
    void write();
  });
}
async function write(): Promise<void> {
  if (writing || queue.length === 0) return;
  writing = true;
  const batch = queue;
  queue = [];
  for (;;) {
    try {
      const outcomes = batch.map((w) => w.outcome);
      await pool.query(RECORD, [JSON.stringify(outcomes), owner, outcomes.map((o) => o.id)]);
      break;
    } catch (error) {
      process.stderr.write(`bare outbox: could not record outcomes, retrying: ${String(error)}\n`);
      await new Promise((resolve) => setTimeout(resolve, 1_000));
    }
  }
  writing = false;
  batch.forEach((w) => w.done());
  void write();
}

async function send(row: Claimed): Promise<void> {
  const body = JSON.stringify({
    messaging_product: 'whatsapp',
    recipient_type: 'individual',
    to: row.phone.replace(/^\+/, ''),
    type: 'text',
    text: { body: row.prompt.replace(/\{\{\s*title\s*\}\}/g, row.title), preview_url: false },
  });
  const path = `${graph.pathname}/${encodeURIComponent(row.number_id)}/messages`;
  const answer = await post(path, tokenOf(row), body);
  const at = new Date().toISOString();
  if (answer.status >= 200 && answer.status < 300) {
    const wamid = (JSON.parse(answer.text) as { messages?: { id: string }[] }).messages?.[0]?.id;
    await record({ id: row.id, status: 'sent', wamid: wamid ?? null, at, error: null });
  } else {
    await record({
      id: row.id,
      status: 'pending',
      wamid: null,
      at,
      error: `http_${answer.status}`,
    });
  }
}

let stopping = false;
process.once('SIGTERM', () => (stopping = true));

async function drain(): Promise<void> {
  const inFlight = new Set<Promise<void>>();
  const refill = Math.max(1, Math.floor(concurrency / 4));
  while (!stopping) {
    const free = concurrency - inFlight.size;
    if (free < refill) {
      await Promise.race(inFlight);
      continue;
    }
    const { rows } = await pool.query<Claimed>(CLAIM, [free, owner]);
    if (rows.length === 0) {
      await (inFlight.size > 0
        ? Promise.race(inFlight)
        : new Promise((resolve) => setTimeout(resolve, 50)));
      continue;
    }
    for (const row of rows) {
      const sending: Promise<void> = send(row).finally(() => inFlight.delete(sending));
      inFlight.add(sending);
    }
  }
  await Promise.all(inFlight);
  await pool.end();
  agent.destroy();
}

pool
  .query('SELECT 1')
  .then(() => {
    process.stdout.write('ready\n');
    return drain();
  })
  .catch((error: unknown) => {
    process.stderr.write(`bare outbox: ${error instanceof Error ? error.stack : String(error)}\n`);
    process.exit(1);
  });
