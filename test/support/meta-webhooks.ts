/** A WhatsApp Business Account notification for one phone number id. */
export const whatsappNotification = (
  numberId: string,
  value: { messages?: unknown[]; statuses?: unknown[] },
) => ({
  object: 'whatsapp_business_account',
  entry: [
    {
      id: '102290129340398',
      changes: [
        {
          field: 'messages',
          value: {
            messaging_product: 'whatsapp',
            metadata: { display_phone_number: '15550783881', phone_number_id: numberId },
            ...value,
          },
        },
      ],
    },
  ],
});
