/*
 * The bare webhook receiver that the webhooks benchmark measures agentline's inbox against, side by
 * side in one run: what any receiver has to do to keep Meta's messages and tell the agent, and
 * nothing else, synchronously in the request. Run as its own process by bench/webhooks.ts, on
 * agentline's schema (its migrations) and the same seeded channels:
 *
 * - `node:http`, `POST /v1/webhooks/whatsapp/:channel_id`, the body read whole;
 * - X-Hub-Signature-256 checked (HMAC-SHA256 of the raw bytes, constant-time compare);
 * - the channel read once per id and kept;
 * - the body parsed, its messages picked out (entry[].changes[].value.messages[]);
 * - one statement that inserts the messages into `channel_messages` (unique per Meta id) and, for
 *   those that were new, their `message.received` rows into `agent_events`; then `200`.
 *
 * Not here, because they are agentline's: the inbox (the raw bytes kept before the `200`, retries,
 * crash safety), item-by-item judgement and setting aside, routing to other numbers, statuses,
 * identities, opt-out keywords, the API's shape of the event, metrics and logs.
 *
 * Env: DATABASE_URL, META_APP_SECRET, PORT. Prints `ready` once listening; stops on SIGTERM.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer } from 'node:http';
import { Pool } from 'pg';

const secret = process.env.META_APP_SECRET ?? '';
const pool = new Pool({ connectionString: process.env.DATABASE_URL, max: 10 });
const channels = new Map<string, Promise<{ organization_id: string; agent_id: string }>>();

interface Message {
  from: string;
  id: string;
  timestamp: string;
  type: string;
  text?: { body?: string };
}

interface Notification {
  entry?: { changes?: { value?: { messages?: Message[] } }[] }[];
}

const INSERT = `
  WITH m AS (
    INSERT INTO channel_messages (id, organization_id, channel_kind, channel_id, sender, sender_user_id,
                                  profile, message_id, type, text, content, context, referral, raw,
                                  opens_window, received_at, created_at)
    SELECT agentline_uuid_v7(), $1, 'whatsapp', $2, m.sender, NULL, NULL, m.message_id, m.type, m.text,
           NULL, NULL, NULL, m.raw, true, to_timestamp(m.at), now()
      FROM unnest($4::text[], $5::text[], $6::text[], $7::text[], $8::jsonb[], $9::float8[])
           AS m(sender, message_id, type, text, raw, at)
    ON CONFLICT (channel_id, message_id) DO NOTHING
    RETURNING id, sender, message_id, type, text, received_at)
  INSERT INTO agent_events (id, organization_id, type, payload, attempts, next_attempt_at, created_at)
  SELECT agentline_uuid_v7(), $1, 'message.received',
         jsonb_build_object('type', 'message.received', 'organization_id', $1::text, 'agent_id', $3::text,
                            'channel_id', $2::text,
                            'data', jsonb_build_object('id', m.id, 'from', m.sender, 'message_id', m.message_id,
                                                       'type', m.type, 'text', m.text, 'received_at', m.received_at)),
         0, now(), now()
    FROM m`;

function channel(id: string): Promise<{ organization_id: string; agent_id: string }> {
  let found = channels.get(id);
  if (!found) {
    found = pool
      .query<{ organization_id: string; agent_id: string }>(
        'SELECT organization_id, agent_id FROM whatsapp_channels WHERE id = $1',
        [id],
      )
      .then(({ rows }) => rows[0]);
    channels.set(id, found);
  }
  return found;
}

const signedBy = (raw: Buffer, header: string | undefined): boolean => {
  if (!header?.startsWith('sha256=') || header.length !== 71) return false;
  const expected = createHmac('sha256', secret).update(raw).digest();
  return timingSafeEqual(expected, Buffer.from(header.slice(7), 'hex'));
};

const server = createServer((request, response) => {
  const chunks: Buffer[] = [];
  request.on('data', (chunk: Buffer) => chunks.push(chunk));
  request.on('end', () => {
    void (async () => {
      const raw = Buffer.concat(chunks);
      const header = request.headers['x-hub-signature-256'];
      if (!signedBy(raw, typeof header === 'string' ? header : undefined)) {
        response.writeHead(401).end();
        return;
      }
      const channelId = (request.url ?? '').split('/').pop() ?? '';
      const found = await channel(channelId);
      if (!found) {
        response.writeHead(403).end();
        return;
      }
      const body = JSON.parse(raw.toString('utf8')) as Notification;
      const messages = (body.entry ?? []).flatMap((entry) =>
        (entry.changes ?? []).flatMap((change) => change.value?.messages ?? []),
      );
      await pool.query(INSERT, [
        found.organization_id,
        channelId,
        found.agent_id,
        messages.map((m) => m.from),
        messages.map((m) => m.id),
        messages.map((m) => m.type),
        messages.map((m) => m.text?.body ?? null),
        messages.map((m) => JSON.stringify(m)),
        messages.map((m) => Number(m.timestamp)),
      ]);
      response.writeHead(200).end();
    })().catch((error: unknown) => {
      process.stderr.write(`bare webhooks: ${String(error)}\n`);
      response.writeHead(500).end();
    });
  });
});

server.keepAliveTimeout = 60_000;
server.listen(Number(process.env.PORT), '127.0.0.1', () => process.stdout.write('ready\n'));
process.on('SIGTERM', () => {
  server.close();
  void pool.end().then(() => process.exit(0));
});
