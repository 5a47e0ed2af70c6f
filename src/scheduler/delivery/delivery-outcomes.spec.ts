import type { ClaimedDelivery } from './delivery-outbox';
import { DeliveryOutcomes } from './delivery-outcomes';
import { chooseMessage } from './delivery.worker';

const NOW = Date.UTC(2030, 0, 1);

const aClaim = (overrides: Partial<ClaimedDelivery> = {}): ClaimedDelivery => ({
  id: 'd1',
  organizationId: 'org',
  followUpId: 'f1',
  channelId: 'c1',
  channelKind: 'whatsapp',
  messageText: null,
  occurrenceAt: NOW,
  phone: '+34600000001',
  attempts: 2,
  prompt: 'Hello {{title}}',
  title: 'Visit',
  description: null,
  template: { name: 'reminder', language: 'en_US', parameters: ['{{title}}: {{message}}'] },
  templateRequired: false,
  content: null,
  ...overrides,
});

describe('DeliveryOutcomes', () => {
  const outcomes = new DeliveryOutcomes(() => NOW, 3);

  it('classifies each answer of a channel', () => {
    const claim = aClaim();
    expect(outcomes.ofSend(claim, 'text', { kind: 'sent', messageId: 'wamid.1' }, true)).toEqual({
      id: 'd1',
      attempt: 2,
      at: NOW,
      status: 'sent',
      providerMessageId: 'wamid.1',
      messageType: 'text',
      sentAt: NOW,
    });
    expect(
      outcomes.ofSend(claim, 'text', { kind: 'permanent', code: '100', message: 'bad' }, true),
    ).toMatchObject({ status: 'failed', errorCode: '100' });
    expect(
      outcomes.ofSend(claim, 'text', { kind: 'token_rejected', code: '190', message: 'x' }, true),
    ).toMatchObject({ status: 'failed', errorCode: '190' });
  });

  it('resends as the template at once only when there is one to fall back on', () => {
    const refused = { kind: 'resend_as_template', code: '131047', message: 'window' } as const;
    expect(outcomes.ofSend(aClaim(), 'text', refused, true)).toEqual({
      id: 'd1',
      attempt: 2,
      at: NOW,
      status: 'pending',
      retryAt: NOW,
      errorCode: '131047',
      errorMessage: 'window',
      templateRequired: true,
    });
    expect(outcomes.ofSend(aClaim(), 'text', refused, false)).toMatchObject({
      status: 'failed',
      errorCode: '131047',
    });
  });

  it('retries a transient failure after the provider asked, until the last attempt', () => {
    const busy = {
      kind: 'transient',
      code: '130429',
      message: 'busy',
      retryAfterMs: 5_000,
    } as const;
    expect(outcomes.ofSend(aClaim(), 'text', busy, false)).toMatchObject({
      status: 'pending',
      retryAt: NOW + 5_000,
    });
    expect(outcomes.ofSend(aClaim({ attempts: 3 }), 'text', busy, false)).toEqual({
      id: 'd1',
      attempt: 3,
      at: NOW,
      status: 'failed',
      errorCode: '130429',
      errorMessage: 'busy (gave up after 3 attempts)',
    });
  });
});

describe('chooseMessage', () => {
  it('sends text inside the window, the filled template outside it', () => {
    expect(chooseMessage(aClaim(), 'Hi', true)).toEqual({ type: 'text', body: 'Hi' });
    expect(chooseMessage(aClaim(), 'Hi', false)).toEqual({
      type: 'template',
      name: 'reminder',
      languageCode: 'en_US',
      bodyParameters: ['Visit: Hi'],
    });
  });

  it('sends the template inside the window once text was refused for it', () => {
    expect(chooseMessage(aClaim({ templateRequired: true }), 'Hi', true)).toMatchObject({
      type: 'template',
    });
  });

  it('sends text outside the window when there is no template (the provider decides)', () => {
    expect(chooseMessage(aClaim({ template: null }), 'Hi', false)).toEqual({
      type: 'text',
      body: 'Hi',
    });
  });

  it("sends a send-now's template parameters as given, and its template alone when it has no text", () => {
    const sendNow = aClaim({
      followUpId: null,
      template: { name: 't', language: 'es', parameters: ['{{title}}'] },
    });
    expect(chooseMessage(sendNow, '', true)).toMatchObject({
      type: 'template',
      bodyParameters: ['{{title}}'],
    });
    expect(chooseMessage({ ...sendNow, messageText: 'Hola' }, 'Hola', true)).toEqual({
      type: 'text',
      body: 'Hola',
    });
  });

  it("sends a send-now's rich message in and out of the window (Meta decides: 131047 fails it)", () => {
    const content = { type: 'image' as const, image: { media_id: '1' }, reply_to: 'wamid.A' };
    const sendNow = aClaim({ followUpId: null, template: null, content });
    for (const windowOpen of [true, false]) {
      expect(chooseMessage(sendNow, '', windowOpen)).toEqual({ type: 'rich', content });
    }
  });
});
