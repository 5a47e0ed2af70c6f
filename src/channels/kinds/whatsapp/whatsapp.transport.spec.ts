import { WHATSAPP_LIMITS, whatsappMessagePayload } from './whatsapp.transport';

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
