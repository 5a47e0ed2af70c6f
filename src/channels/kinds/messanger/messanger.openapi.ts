import type { NotificationExample } from '../channel-kind';

/** What Meta sends a Messanger channel, one small notification, for the OpenAPI document. */
export const MESSANGER_NOTIFICATION_EXAMPLE: NotificationExample = {
  kind: 'messanger',
  summary:
    'A person presses Get Started on the page of the channel example (user_id 1029384756): a postback, which opens the 24-hour window',
  value: {
    object: 'page',
    entry: [
      {
        id: '1029384756',
        time: 1763800000000,
        messaging: [
          {
            sender: { id: '6543210987654321' },
            recipient: { id: '1029384756' },
            timestamp: 1763800000000,
            postback: { mid: 'm_AbCdEf123', title: 'Get Started', payload: 'GET_STARTED' },
          },
        ],
      },
    ],
  },
};
