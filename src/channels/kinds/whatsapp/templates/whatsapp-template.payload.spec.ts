import { whatsappTemplatePayload } from './whatsapp-template.payload';

describe('whatsappTemplatePayload', () => {
  it('sends a template without parameters with no components (Meta refuses empty ones)', () => {
    expect(
      whatsappTemplatePayload({
        type: 'template',
        name: 'hello_world',
        languageCode: 'en_US',
        bodyParameters: [],
      }),
    ).toEqual({ name: 'hello_world', language: { code: 'en_US' } });
  });

  it("builds Meta's header, named body (by name) and button components, buttons in index order", () => {
    expect(
      whatsappTemplatePayload({
        type: 'template',
        name: 'autumn_sale',
        languageCode: 'en_US',
        bodyParameters: [],
        namedParameters: { first_name: 'Ana', end_date: 'Sunday' },
        header: { type: 'image', link: 'https://cdn.example.org/autumn.png' },
        buttons: [
          { index: 2, sub_type: 'flow', parameter: 'flow-token-1' },
          { index: 1, sub_type: 'copy_code', parameter: '25OFF' },
          { index: 0, sub_type: 'url', parameter: 'autumn' },
          { index: 3, sub_type: 'quick_reply', parameter: 'stop_promotions' },
        ],
      }),
    ).toEqual({
      name: 'autumn_sale',
      language: { code: 'en_US' },
      components: [
        {
          type: 'header',
          parameters: [{ type: 'image', image: { link: 'https://cdn.example.org/autumn.png' } }],
        },
        {
          type: 'body',
          parameters: [
            { type: 'text', parameter_name: 'end_date', text: 'Sunday' },
            { type: 'text', parameter_name: 'first_name', text: 'Ana' },
          ],
        },
        {
          type: 'button',
          sub_type: 'url',
          index: '0',
          parameters: [{ type: 'text', text: 'autumn' }],
        },
        {
          type: 'button',
          sub_type: 'copy_code',
          index: '1',
          parameters: [{ type: 'coupon_code', coupon_code: '25OFF' }],
        },
        {
          type: 'button',
          sub_type: 'flow',
          index: '2',
          parameters: [{ type: 'action', action: { flow_token: 'flow-token-1' } }],
        },
        {
          type: 'button',
          sub_type: 'quick_reply',
          index: '3',
          parameters: [{ type: 'payload', payload: 'stop_promotions' }],
        },
      ],
    });
  });

  it.each([
    [
      { type: 'text', text: '42' },
      { type: 'text', text: '42' },
    ],
    [
      { type: 'text', text: 'Sunday', parameter_name: 'end_date' },
      { type: 'text', parameter_name: 'end_date', text: 'Sunday' },
    ],
    [
      { type: 'video', media_id: '1013859600285441' },
      { type: 'video', video: { id: '1013859600285441' } },
    ],
    [
      { type: 'document', link: 'https://shop.example.com/a.pdf' },
      { type: 'document', document: { link: 'https://shop.example.com/a.pdf' } },
    ],
    [
      { type: 'location', location: { latitude: 40.4, longitude: -3.7, name: 'Store' } },
      { type: 'location', location: { latitude: 40.4, longitude: -3.7, name: 'Store' } },
    ],
  ] as const)('sends header %j as %j, positional body parameters as text', (header, parameter) => {
    expect(
      whatsappTemplatePayload({
        type: 'template',
        name: 'order_update',
        languageCode: 'es',
        bodyParameters: ['Ana', '42'],
        header,
      }),
    ).toEqual({
      name: 'order_update',
      language: { code: 'es' },
      components: [
        { type: 'header', parameters: [parameter] },
        {
          type: 'body',
          parameters: [
            { type: 'text', text: 'Ana' },
            { type: 'text', text: '42' },
          ],
        },
      ],
    });
  });
});
