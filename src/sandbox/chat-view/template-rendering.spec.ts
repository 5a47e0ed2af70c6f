import {
  ORDER_UPDATE,
  SPRING_SALE,
  SPRING_SALE_SENT_TO_ANA,
} from '../../../test/support/meta-templates';
import { renderTemplate } from './template-rendering';

describe('renderTemplate', () => {
  it('fills named placeholders, the image header and the URL button of spring_sale', () => {
    expect(renderTemplate(SPRING_SALE_SENT_TO_ANA.template, SPRING_SALE.components)).toEqual({
      name: 'spring_sale',
      language: 'en_US',
      found: true,
      header: {
        format: 'image',
        media: { link: 'https://shop.example.com/spring.jpg' },
      },
      body: 'Hi Ana, 20% off every plant until Sunday.',
      footer: 'Reply STOP to opt out',
      buttons: [
        {
          type: 'url',
          text: 'Shop now',
          url: 'https://shop.example.com/sale/spring?to=+34612345678',
        },
        { type: 'quick_reply', text: 'Stop promotions' },
      ],
      parameters: [
        'https://shop.example.com/spring.jpg',
        'Ana',
        '20% off every plant',
        'spring?to=+34612345678',
      ],
    });
  });

  it('fills positional placeholders in the header and the body, and the copy-code button', () => {
    const sent = {
      name: 'order_update',
      language: { code: 'es' },
      components: [
        { type: 'header', parameters: [{ type: 'text', text: '42' }] },
        {
          type: 'body',
          parameters: [
            { type: 'text', text: 'Ana' },
            { type: 'currency', currency: { fallback_value: '42,00 €', code: 'EUR' } },
          ],
        },
        {
          type: 'button',
          sub_type: 'copy_code',
          index: '0',
          parameters: [{ type: 'coupon_code', coupon_code: '25OFF' }],
        },
      ],
    };
    const rendered = renderTemplate(sent, ORDER_UPDATE.components);
    expect(rendered.header).toEqual({ format: 'text', text: 'Pedido 42' });
    expect(rendered.body).toBe('Hola Ana, tu pedido 42,00 € sale hoy.');
    expect(rendered.buttons).toEqual([
      { type: 'copy_code', text: '', code: '25OFF' },
      { type: 'phone_number', text: 'Llámanos' },
      { type: 'url', text: 'Ayuda', url: 'https://shop.example.com/help' },
    ]);
  });

  it('leaves a placeholder the send has no parameter for, and lists the parameters when the catalog lacks the template', () => {
    const sent = { name: 'unknown', language: { code: 'en' }, components: [] };
    expect(renderTemplate(sent, [{ type: 'BODY', text: 'Hi {{1}} and {{who}}' }]).body).toBe(
      'Hi {{1}} and {{who}}',
    );
    expect(renderTemplate(SPRING_SALE_SENT_TO_ANA.template, undefined)).toMatchObject({
      found: false,
      buttons: [],
      parameters: expect.arrayContaining(['Ana', '20% off every plant']),
    });
    expect(renderTemplate(SPRING_SALE_SENT_TO_ANA.template, undefined).body).toBeUndefined();
  });
});
