/**
 * OpenAPI request examples of Messenger sends (test/openapi-examples.e2e-spec.ts sends each one
 * to the person of the notification example, who has just written to the page).
 */
const TO = '6543210987654321';

export const MESSANGER_MESSAGE_EXAMPLES = {
  text: {
    summary: "Text, inside Messenger's 24-hour window",
    value: { to: TO, text: 'Your order has shipped; it arrives on Thursday.' },
  },
  quick_replies: {
    summary: 'Text with quick replies (up to 13; titles up to 20 characters)',
    value: {
      to: TO,
      text: 'Which colour would you like?',
      quick_replies: [
        { content_type: 'text', title: 'Blue', payload: 'COLOR_BLUE' },
        { content_type: 'text', title: 'Green', payload: 'COLOR_GREEN' },
        { content_type: 'user_email' },
      ],
    },
  },
  attachment: {
    summary: 'An image by URL (or a saved attachment_id)',
    value: {
      to: TO,
      attachment: { type: 'image', url: 'https://shop.example.com/images/blue-kettle.jpg' },
    },
  },
  tag: {
    summary: 'A message tag: may go outside the 24-hour window, as MESSAGE_TAG',
    value: { to: TO, text: 'Your order #2041 has shipped.', tag: 'POST_PURCHASE_UPDATE' },
  },
};
