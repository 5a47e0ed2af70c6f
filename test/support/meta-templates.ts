/**
 * Templates as Meta's `GET /{waba_id}/message_templates` lists them (the rows the catalog sync
 * writes: components exactly as Meta sends them), and sends that fit them.
 * `spring_sale` is NAMED, with an IMAGE header, a dynamic URL button and a quick reply;
 * `order_update` is POSITIONAL, with a TEXT header variable and a copy-code button.
 */
export interface CatalogRow {
  name: string;
  language: string;
  category: string;
  parameter_format: 'POSITIONAL' | 'NAMED';
  components: unknown[];
}

export const SPRING_SALE: CatalogRow = {
  name: 'spring_sale',
  language: 'en_US',
  category: 'MARKETING',
  parameter_format: 'NAMED',
  components: [
    { type: 'HEADER', format: 'IMAGE', example: { header_handle: ['4::aW1hZ2UvanBlZw==:ARb'] } },
    {
      type: 'BODY',
      text: 'Hi {{first_name}}, {{offer}} until Sunday.',
      example: {
        body_text_named_params: [
          { param_name: 'first_name', example: 'Ana' },
          { param_name: 'offer', example: '20% off' },
        ],
      },
    },
    { type: 'FOOTER', text: 'Reply STOP to opt out' },
    {
      type: 'BUTTONS',
      buttons: [
        {
          type: 'URL',
          text: 'Shop now',
          url: 'https://shop.example.com/sale/{{1}}',
          example: ['https://shop.example.com/sale/spring'],
        },
        { type: 'QUICK_REPLY', text: 'Stop promotions' },
      ],
    },
  ],
};

export const ORDER_UPDATE: CatalogRow = {
  name: 'order_update',
  language: 'es',
  category: 'UTILITY',
  parameter_format: 'POSITIONAL',
  components: [
    { type: 'HEADER', format: 'TEXT', text: 'Pedido {{1}}', example: { header_text: ['42'] } },
    {
      type: 'BODY',
      text: 'Hola {{1}}, tu pedido {{2}} sale hoy.',
      example: { body_text: [['Ana', '42']] },
    },
    {
      type: 'BUTTONS',
      buttons: [
        { type: 'COPY_CODE', example: '25OFF' },
        { type: 'PHONE_NUMBER', text: 'Llámanos', phone_number: '+34612345678' },
        { type: 'URL', text: 'Ayuda', url: 'https://shop.example.com/help' },
      ],
    },
  ],
};

/** A follow-up's send of `spring_sale`, placeholders to be filled. */
export const SPRING_SALE_SEND = {
  name: 'spring_sale',
  language: 'en_US',
  parameters: [] as string[],
  named_parameters: { first_name: '{{title}}', offer: '{{description}}' },
  header: { type: 'image' as const, link: 'https://shop.example.com/spring.jpg' },
  buttons: [{ index: 0, sub_type: 'url' as const, parameter: 'spring?to={{phone}}' }],
};

/**
 * The Graph body a weekly follow-up of SPRING_SALE_SEND sends, titled Ana and described "20% off
 * every plant", to +34612345678: Meta's documented template components, every placeholder filled.
 */
export const SPRING_SALE_SENT_TO_ANA = {
  messaging_product: 'whatsapp',
  recipient_type: 'individual',
  to: '34612345678',
  type: 'template',
  template: {
    name: 'spring_sale',
    language: { code: 'en_US' },
    components: [
      {
        type: 'header',
        parameters: [{ type: 'image', image: { link: 'https://shop.example.com/spring.jpg' } }],
      },
      {
        type: 'body',
        parameters: [
          { type: 'text', parameter_name: 'first_name', text: 'Ana' },
          { type: 'text', parameter_name: 'offer', text: '20% off every plant' },
        ],
      },
      {
        type: 'button',
        sub_type: 'url',
        index: '0',
        parameters: [{ type: 'text', text: 'spring?to=+34612345678' }],
      },
    ],
  },
};

export const ORDER_UPDATE_SEND = {
  name: 'order_update',
  language: 'es',
  parameters: ['Ana', '42'],
  header: { type: 'text' as const, text: '42' },
  buttons: [{ index: 0, sub_type: 'copy_code' as const, parameter: '25OFF' }],
};
