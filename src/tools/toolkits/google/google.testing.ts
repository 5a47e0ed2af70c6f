import { filled, longEmails, ToolkitTesting } from '../builtin-toolkit.testing';

export const testing: ToolkitTesting = {
  variablePrefix: 'GOOGLE_API_',
  provider: { urlVariable: 'GOOGLE_API_URL' },
  worstInputs: {
    // A non-ASCII subject is cut into RFC 2047 words, headers are folded: linear, but the most work.
    'Google.SendEmail': () => ({
      recipient: 'ana@example.com',
      subject: filled('Olá ', 998),
      body: filled('Olá, mundo. ', 100_000),
      cc: longEmails(100),
      bcc: longEmails(100),
    }),
    'Google.ListEmails': () => ({ max_results: 100, include_body: true }),
    'Google.CreateCalendarEvent': () => ({
      summary: filled('s', 1024),
      start_datetime: '2025-03-20T10:00:00',
      end_datetime: '2025-03-20T11:00:00',
      description: filled('d', 8192),
      location: filled('l', 1024),
      attendee_emails: longEmails(100),
    }),
    'Google.ListCalendarEvents': () => ({ max_results: 250 }),
  },
};
