import type { NotificationExample } from '../channel-kind';

/** What Meta sends a WhatsApp channel, one small notification, for the OpenAPI document. */
export const WHATSAPP_NOTIFICATION_EXAMPLE: NotificationExample = {
  kind: 'whatsapp',
  summary: 'A text message to the number of the channel example (number_id 106540352242922)',
  value: {
    object: 'whatsapp_business_account',
    entry: [
      {
        id: '102290129340398',
        changes: [
          {
            field: 'messages',
            value: {
              messaging_product: 'whatsapp',
              metadata: { display_phone_number: '15550783881', phone_number_id: '106540352242922' },
              contacts: [{ profile: { name: 'Ana' }, wa_id: '34612345678' }],
              messages: [
                {
                  from: '34612345678',
                  id: 'wamid.HBgLMzQ2MTIzNDU2NzgVAgASGBQzQTdGQjQ5RkY0QjA2NkQ5QTc2RgA=',
                  timestamp: '1763800000',
                  type: 'text',
                  text: { body: 'Hola' },
                },
              ],
            },
          },
        ],
      },
    ],
  },
};
