import { describeFailure, inboundBody, mimeTypeOf } from './simulate';

describe('npm run simulate', () => {
  it('builds the inbound body of each option in Meta’s message shapes', () => {
    expect(inboundBody('whatsapp', '+34612345678', { text: 'hi' })).toEqual({
      from: '+34612345678',
      text: 'hi',
    });
    expect(inboundBody('whatsapp', '+34612345678', { location: '40.4,-3.7,Sol, Madrid' })).toEqual({
      from: '+34612345678',
      message: {
        type: 'location',
        location: { latitude: 40.4, longitude: -3.7, name: 'Sol, Madrid' },
      },
    });
    expect(
      inboundBody('whatsapp', '+34612345678', {
        'button-reply': 'yes:Yes, please',
        'reply-to': 'wamid.A',
      }),
    ).toEqual({
      from: '+34612345678',
      message: {
        type: 'interactive',
        interactive: { type: 'button_reply', button_reply: { id: 'yes', title: 'Yes, please' } },
        context: { id: 'wamid.A' },
      },
    });
    expect(inboundBody('messanger', '123', { 'button-reply': 'yes:Yes' })).toEqual({
      from: '123',
      message: { text: 'Yes', quick_reply: { payload: 'yes' } },
    });
    expect(inboundBody('whatsapp', '+1', { reaction: 'wamid.A:👍' }).message).toEqual({
      type: 'reaction',
      reaction: { message_id: 'wamid.A', emoji: '👍' },
    });
    expect(
      inboundBody('whatsapp', '+1', { message: '{"type":"text","text":{"body":"x"}}' }),
    ).toEqual({
      from: '+1',
      message: { type: 'text', text: { body: 'x' } },
    });
  });

  it('sends an uploaded file by its media id', () => {
    const uploaded = { id: '1234567890', mimeType: 'application/pdf', filename: 'invoice.pdf' };
    expect(
      inboundBody('whatsapp', '+1', { document: 'invoice.pdf', caption: 'March' }, uploaded),
    ).toEqual({
      from: '+1',
      message: {
        type: 'document',
        document: {
          id: '1234567890',
          mime_type: 'application/pdf',
          filename: 'invoice.pdf',
          caption: 'March',
        },
      },
    });
    expect(() => inboundBody('messanger', '1', { image: 'a.jpg' }, uploaded)).toThrow(
      /WhatsApp only/,
    );
  });

  it('uploads each file it knows as a type agentline accepts (a CSV as text/plain)', () => {
    // Meta's image and document types (src/channels/kinds/whatsapp/whatsapp-media-types.ts).
    const accepted = [
      'image/jpeg',
      'image/png',
      'text/plain',
      'application/pdf',
      'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
      'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
    ];
    for (const file of [
      'a.jpg',
      'a.jpeg',
      'a.png',
      'a.pdf',
      'a.txt',
      'a.csv',
      'a.docx',
      'a.xlsx',
    ]) {
      expect(accepted).toContain(mimeTypeOf(file));
    }
    expect(mimeTypeOf('orders.CSV')).toBe('text/plain');
  });

  it('replies in each kind’s own shape: WhatsApp’s context.id, Messenger’s reply_to.mid', () => {
    expect(inboundBody('messanger', '123', { text: 'Yes', 'reply-to': 'm_A' })).toEqual({
      from: '123',
      message: { text: 'Yes', reply_to: { mid: 'm_A' } },
    });
    expect(inboundBody('whatsapp', '+1', { text: 'Yes', 'reply-to': 'wamid.A' })).toEqual({
      from: '+1',
      message: { type: 'text', text: { body: 'Yes' }, context: { id: 'wamid.A' } },
    });
  });

  it('refuses options it cannot turn into a message, saying which', () => {
    expect(() => inboundBody('whatsapp', '+1', {})).toThrow(/exactly one of --text/);
    expect(() => inboundBody('whatsapp', '+1', { text: 'a', location: '1,2' })).toThrow(
      /exactly one/,
    );
    expect(() => inboundBody('whatsapp', '+1', { location: '40.4' })).toThrow(/latitude,longitude/);
    expect(() => inboundBody('whatsapp', '+1', { 'button-reply': 'yes' })).toThrow(/id:value/);
    expect(() => inboundBody('messanger', '1', { location: '1,2' })).toThrow(/WhatsApp only/);
    expect(() => inboundBody('whatsapp', '+1', { message: '[1]' })).toThrow(/JSON object/);
    expect(() => inboundBody('whatsapp', '+1', { message: '{' })).toThrow(/not JSON/);
  });

  it('prints a problem readably, and any other answer as it came', () => {
    const problem = JSON.stringify({
      title: 'Bad Request',
      detail: 'The request is not valid.',
      code: 'validation_failed',
      errors: [{ field: 'from', message: 'from must be an E.164 number' }],
      request_id: 'req-1',
    });
    expect(describeFailure(400, problem)).toBe(
      'HTTP 400 Bad Request: The request is not valid.\n  from: from must be an E.164 number\n  (code validation_failed, request_id req-1)',
    );
    expect(describeFailure(502, '<html>bad gateway</html>')).toBe(
      'HTTP 502: <html>bad gateway</html>',
    );
  });
});
