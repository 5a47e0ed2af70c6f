import { HUMAN_AGENT_WINDOW_MS, messangerRichPayload, tagRefusal } from './messanger-rich.payload';

describe('tagRefusal', () => {
  const now = Date.UTC(2026, 10, 2);

  it('lets the update tags go any time', () => {
    for (const tag of [
      'ACCOUNT_UPDATE',
      'CONFIRMED_EVENT_UPDATE',
      'POST_PURCHASE_UPDATE',
    ] as const) {
      expect(tagRefusal(tag, null, now)).toBeUndefined();
      expect(tagRefusal(tag, now - 365 * 24 * 3_600_000, now)).toBeUndefined();
    }
  });

  it('lets HUMAN_AGENT go within 7 days of the last message only', () => {
    expect(tagRefusal('HUMAN_AGENT', now - HUMAN_AGENT_WINDOW_MS + 1, now)).toBeUndefined();
    expect(tagRefusal('HUMAN_AGENT', now - HUMAN_AGENT_WINDOW_MS, now)).toContain('7 days');
    expect(tagRefusal('HUMAN_AGENT', null, now)).toContain('7 days');
  });
});

describe('messangerRichPayload', () => {
  it('sends a saved attachment by id, and a tag as MESSAGE_TAG', () => {
    expect(
      messangerRichPayload('123', {
        type: 'attachment',
        attachment: { type: 'video', attachment_id: '99' },
        tag: 'ACCOUNT_UPDATE',
      }),
    ).toEqual({
      recipient: { id: '123' },
      messaging_type: 'MESSAGE_TAG',
      tag: 'ACCOUNT_UPDATE',
      message: { attachment: { type: 'video', payload: { attachment_id: '99' } } },
    });
  });
});
