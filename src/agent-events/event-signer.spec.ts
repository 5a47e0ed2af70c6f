import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { signerFor, webhookId } from './agent-events.sender';

/** The receiver's side is the standardwebhooks library: it must accept what agentline signs. */
describe('signerFor (Standard Webhooks signatures)', () => {
  const id = webhookId('01900000-0000-7000-8000-000000000001');
  const at = new Date();
  const body = JSON.stringify({ type: 'message.received', data: { text: 'Olá 👋, "quoted"' } });
  const headers = (signature: string) => ({
    'webhook-id': id,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': signature,
  });

  it('signs with a whsec_ secret as the library verifies it', () => {
    const secret = `whsec_${randomBytes(32).toString('base64')}`;
    const signature = signerFor(secret).sign(id, at, body);
    expect(signature).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
    expect(new Webhook(secret).verify(body, headers(signature))).toEqual(JSON.parse(body));
    expect(signature).toBe(new Webhook(secret).sign(id, at, body));
  });

  it('signs with a passphrase (its UTF-8 bytes the key) as the library verifies it', () => {
    const secret = 'a passphrase the operator chose, ñ';
    const signature = signerFor(secret).sign(id, at, body);
    const receiver = new Webhook(Buffer.from(secret, 'utf8'), { format: 'raw' });
    expect(receiver.verify(body, headers(signature))).toEqual(JSON.parse(body));
  });

  it('is refused for another body or another secret', () => {
    const secret = `whsec_${randomBytes(32).toString('base64')}`;
    const signature = signerFor(secret).sign(id, at, body);
    expect(() => new Webhook(secret).verify(`${body} `, headers(signature))).toThrow();
    const other = `whsec_${randomBytes(32).toString('base64')}`;
    expect(() => new Webhook(other).verify(body, headers(signature))).toThrow();
  });
});
