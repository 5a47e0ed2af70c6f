/**
 * OpenAPI request examples of the rich WhatsApp sends (test/openapi-examples.e2e-spec.ts sends
 * each one, and each must succeed as given). The quoted message is an inbound item's message_id.
 */
const TO = '+34612345678';
const CLIENT_MESSAGE = 'wamid.HBgLMzQ2MTIzNDU2NzgVAgASGBQzQTdCRDE2NEQ5RjQ2QzZBQjY3NQA=';

export const WHATSAPP_RICH_EXAMPLES = {
  image: {
    summary: 'A product photo with a caption (an uploaded media_id, or an https link)',
    value: {
      to: TO,
      image: { media_id: '1013859600285441', caption: 'The blue kettle, back in stock.' },
    },
  },
  document: {
    summary: 'A document by link, with the file name the client sees',
    value: {
      to: TO,
      document: {
        link: 'https://shop.example.com/invoices/2041.pdf',
        caption: 'Your invoice',
        filename: 'invoice-2041.pdf',
      },
    },
  },
  location: {
    summary: 'A location pin',
    value: {
      to: TO,
      location: {
        latitude: 40.4168,
        longitude: -3.7038,
        name: 'Agentline Store',
        address: 'Gran Vía 1, 28013 Madrid',
      },
    },
  },
  contacts: {
    summary: "A contact card (Meta's contacts object)",
    value: {
      to: TO,
      contacts: [
        {
          name: { formatted_name: 'Ana García', first_name: 'Ana', last_name: 'García' },
          phones: [{ phone: '+34 612 345 678', type: 'WORK', wa_id: '34612345678' }],
          emails: [{ email: 'ana@example.com', type: 'WORK' }],
        },
      ],
    },
  },
  buttons: {
    summary: 'A photo header and two reply buttons (1 to 3; titles up to 20 characters)',
    value: {
      to: TO,
      interactive: {
        type: 'button',
        header: { type: 'image', image: { id: '1013859600285441' } },
        body: { text: 'The blue kettle is back. Which size would you like?' },
        footer: { text: 'Prices include VAT' },
        action: {
          buttons: [
            { type: 'reply', reply: { id: 'size_s', title: 'Small' } },
            { type: 'reply', reply: { id: 'size_l', title: 'Large' } },
          ],
        },
      },
    },
  },
  list: {
    summary: 'A list (up to 10 sections and 10 rows in all; a text header only)',
    value: {
      to: TO,
      interactive: {
        type: 'list',
        header: { type: 'text', text: 'Appointments' },
        body: { text: 'Pick a time that suits you.' },
        footer: { text: 'You can change it later' },
        action: {
          button: 'See times',
          sections: [
            {
              title: 'Monday',
              rows: [
                { id: 'mon_10', title: '10:00', description: 'With Dr. Ruiz' },
                { id: 'mon_16', title: '16:00', description: 'With Dr. Vidal' },
              ],
            },
            { title: 'Tuesday', rows: [{ id: 'tue_12', title: '12:00' }] },
          ],
        },
      },
    },
  },
  cta_url: {
    summary: 'A call-to-action button that opens a URL',
    value: {
      to: TO,
      interactive: {
        type: 'cta_url',
        body: { text: 'Your order is on its way.' },
        action: {
          name: 'cta_url',
          parameters: {
            display_text: 'Track my order',
            url: 'https://shop.example.com/orders/2041',
          },
        },
      },
    },
  },
  reaction: {
    summary: "A reaction to the client's message (its item's message_id)",
    value: { to: TO, reaction: { message_id: CLIENT_MESSAGE, emoji: '👍' } },
  },
  reply: {
    summary: "Text quoting the client's message (reply_to works with every type but reactions)",
    value: { to: TO, text: 'Yes, it comes in blue and green.', reply_to: CLIENT_MESSAGE },
  },
};
