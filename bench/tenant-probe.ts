/*
 * The other tenant of the webhooks benchmark, in a process of its own (bench/webhooks.ts forks
 * it): `GET /v1/channels/whatsapp` with its token every 50 ms, each answer timed; on the message
 * 'stop' it sends the times back and exits. In the benchmark's own process its timings would wait
 * behind the flood that process sends and the agent events it receives.
 */
import { Agent, request } from 'node:http';

const [port, token] = process.argv.slice(2);
const agent = new Agent({ keepAlive: true, maxSockets: 8 });
const times: number[] = [];
const pending: Promise<void>[] = [];

function get(): Promise<void> {
  const sent = performance.now();
  return new Promise((done, fail) => {
    const req = request(
      {
        host: '127.0.0.1',
        port: Number(port),
        path: '/v1/channels/whatsapp',
        agent,
        headers: { authorization: `Bearer ${token}` },
      },
      (res) => {
        res.resume();
        res.on('end', () => {
          if (res.statusCode !== 200) fail(new Error(`answered ${res.statusCode}`));
          else {
            times.push(performance.now() - sent);
            done();
          }
        });
      },
    );
    req.on('error', fail);
    req.end();
  });
}

let failure: string | undefined;
const timer = setInterval(() => {
  // Kept until 'stop': the parent learns of a refusal then, and this process stays up.
  pending.push(get().catch((error: unknown) => void (failure ??= String(error))));
}, 50);
process.on('message', (message) => {
  if (message !== 'stop') return;
  clearInterval(timer);
  void Promise.all(pending).then(() =>
    process.send?.(failure === undefined ? { times } : { error: failure }, () => process.exit(0)),
  );
});
