import { answeredForms, WHATSAPP_LIMITS, whatsappMessagePayload } from './whatsapp.transport';
import {
  graphSendAnswer,
  graphSendAnswerBrazil,
  graphSendAnswerBsuid,
} from '../../../../test/support/meta-payloads';

describe('whatsappMessagePayload', () => {
  it('writes a text as the Cloud API documents it, the phone without its +', () => {
    expect(whatsappMessagePayload('+5511987654321', { type: 'text', body: 'Olá' })).toEqual({
      messaging_product: 'whatsapp',
      recipient_type: 'individual',
      to: '5511987654321',
      type: 'text',
      text: { body: 'Olá', preview_url: false },
    });
  });

  it('writes a template with its body parameters in order', () => {
    expect(
      whatsappMessagePayload('+34600111222', {
        type: 'template',
        name: 'order_update',
        languageCode: 'es',
        bodyParameters: ['Ana', '#123'],
      }),
    ).toEqual({
      messaging_product: 'whatsapp',
      recipient_type: 'individual',
      to: '34600111222',
      type: 'template',
      template: {
        name: 'order_update',
        language: { code: 'es' },
        components: [
          {
            type: 'body',
            parameters: [
              { type: 'text', text: 'Ana' },
              { type: 'text', text: '#123' },
            ],
          },
        ],
      },
    });
  });

  it('leaves out the body component of a template without parameters (Meta refuses an empty one)', () => {
    const payload = whatsappMessagePayload('+34600111222', {
      type: 'template',
      name: 'hello_world',
      languageCode: 'en_US',
      bodyParameters: [],
    });
    expect(payload).toMatchObject({ template: { name: 'hello_world' } });
    expect(payload).not.toHaveProperty('template.components');
  });

  it('states WhatsApp text limit', () => {
    expect(WHATSAPP_LIMITS.textLength).toBe(4096);
  });
});

describe('a business-scoped user id', () => {
  it('goes in `recipient` instead of `to`, as given', () => {
    expect(whatsappMessagePayload('US.13491208655302741918', { type: 'text', body: 'Hi' })).toEqual(
      {
        messaging_product: 'whatsapp',
        recipient_type: 'individual',
        recipient: 'US.13491208655302741918',
        type: 'text',
        text: { body: 'Hi', preview_url: false },
      },
    );
  });
});

describe('answeredForms', () => {
  it('reads the wa_id Meta answers for a number dialled in another form', () => {
    expect(answeredForms('+5541988887924', graphSendAnswerBrazil)).toEqual(['+554188887924']);
  });
  it('reads nothing new when the answer names the number or BSUID dialled', () => {
    expect(answeredForms('+16505551234', graphSendAnswer)).toEqual([]);
    expect(answeredForms('US.13491208655302741918', graphSendAnswerBsuid)).toEqual([]);
  });
  it('ignores what is not a phone number or a BSUID', () => {
    expect(answeredForms('+1', { contacts: [{ wa_id: 'x', user_id: '../1' }] })).toEqual([]);
    expect(answeredForms('+1', 'not json')).toEqual([]);
  });
});
