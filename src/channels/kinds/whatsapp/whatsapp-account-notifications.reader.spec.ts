import { parseWhatsappNotification } from './whatsapp-notification.parser';

/*
 * A WhatsApp Business Account's notifications beyond messages, in the shapes of Meta's webhook
 * reference: user_preferences, message_template_status_update, message_template_quality_update,
 * template_category_update, and a `failed` status with 131050.
 */

const WABA = '102290129340398';
const NUMBER = '106540352242922';

const accountNotification = (field: string, value: Record<string, unknown>) => ({
  object: 'whatsapp_business_account',
  entry: [{ id: WABA, time: 1739321024, changes: [{ value, field }] }],
});

const numberValue = (value: Record<string, unknown>) => ({
  messaging_product: 'whatsapp',
  metadata: { display_phone_number: '15550783881', phone_number_id: NUMBER },
  ...value,
});

describe('parseWhatsappNotification: user_preferences', () => {
  const preference = (fields: Record<string, unknown>) =>
    accountNotification(
      'user_preferences',
      numberValue({
        contacts: [{ profile: { name: 'Sheena Nelson' }, wa_id: '16505551234' }],
        user_preferences: [
          {
            wa_id: '16505551234',
            detail: 'User requested to stop marketing messages',
            category: 'marketing_messages',
            value: 'stop',
            timestamp: 1731705721,
            ...fields,
          },
        ],
      }),
    );

  it.each(['stop', 'resume'])('reads %s for the number, at its timestamp', (value) => {
    const parsed = parseWhatsappNotification(preference({ value }));
    expect(parsed.setAside).toEqual([]);
    expect(parsed.read).toEqual([
      expect.objectContaining({
        item: 'preference',
        path: 'entry[0].changes[0].value.user_preferences[0]',
        event: {
          kind: 'preference',
          account: NUMBER,
          recipient: '+16505551234',
          value,
          at: 1731705721000,
        },
      }),
    ]);
  });

  it.each([
    [{ category: 'other_messages' }, 'unsupported_field'],
    [{ value: 'maybe' }, 'invalid_field'],
    [{ wa_id: 'someone' }, 'invalid_field'],
    [{ timestamp: 'soon' }, 'invalid_field'],
  ])('sets aside %j (%s)', (fields, reason) => {
    const parsed = parseWhatsappNotification(preference(fields));
    expect(parsed.read).toEqual([]);
    expect(parsed.setAside).toEqual([expect.objectContaining({ item: 'preference', reason })]);
  });
});

describe('parseWhatsappNotification: template notifications', () => {
  it('reads a status update for the account (entry.id), with the status it moved to', () => {
    const parsed = parseWhatsappNotification(
      accountNotification('message_template_status_update', {
        event: 'PAUSED',
        message_template_id: 806312974732579,
        message_template_name: 'welcome_template',
        message_template_language: 'en-US',
        reason: 'NONE',
        message_template_category: 'MARKETING',
      }),
    );
    expect(parsed.setAside).toEqual([]);
    expect(parsed.read.map((item) => item.event)).toEqual([
      {
        kind: 'template',
        businessAccountId: WABA,
        field: 'message_template_status_update',
        name: 'welcome_template',
        language: 'en-US',
        status: 'PAUSED',
      },
    ]);
  });

  it('reads REINSTATED as APPROVED, and an event that is no status (FLAGGED) as a sync only', () => {
    const event = (name: string) =>
      parseWhatsappNotification(
        accountNotification('message_template_status_update', {
          event: name,
          message_template_id: 1,
          message_template_name: 'welcome_template',
          message_template_language: 'en_US',
          reason: 'NONE',
        }),
      ).read[0].event;
    expect(event('REINSTATED')).toMatchObject({ status: 'APPROVED' });
    expect(event('FLAGGED')).not.toHaveProperty('status');
  });

  it('reads a quality update as a sync only', () => {
    const parsed = parseWhatsappNotification(
      accountNotification('message_template_quality_update', {
        previous_quality_score: 'GREEN',
        new_quality_score: 'YELLOW',
        message_template_id: 806312974732579,
        message_template_name: 'welcome_template',
        message_template_language: 'en-US',
      }),
    );
    expect(parsed.read.map((item) => item.event)).toEqual([
      {
        kind: 'template',
        businessAccountId: WABA,
        field: 'message_template_quality_update',
        name: 'welcome_template',
        language: 'en-US',
      },
    ]);
  });

  it('applies a completed category change, not an impending one', () => {
    const category = (value: Record<string, unknown>) =>
      parseWhatsappNotification(
        accountNotification('template_category_update', {
          message_template_id: 278077987957091,
          message_template_name: 'welcome_template',
          message_template_language: 'en-US',
          ...value,
        }),
      ).read[0].event;
    expect(category({ previous_category: 'UTILITY', new_category: 'MARKETING' })).toMatchObject({
      category: 'MARKETING',
    });
    expect(
      category({
        correct_category: 'MARKETING',
        new_category: 'UTILITY',
        category_update_timestamp: 1760711433,
      }),
    ).not.toHaveProperty('category');
  });

  it('sets aside a template notification without a name, or without the account', () => {
    const parsed = parseWhatsappNotification({
      object: 'whatsapp_business_account',
      entry: [
        {
          id: WABA,
          changes: [
            {
              field: 'message_template_status_update',
              value: { event: 'APPROVED', message_template_language: 'en_US' },
            },
          ],
        },
        {
          changes: [
            {
              field: 'message_template_status_update',
              value: {
                event: 'APPROVED',
                message_template_name: 'a',
                message_template_language: 'en_US',
              },
            },
          ],
        },
      ],
    });
    expect(parsed.read).toEqual([]);
    expect(parsed.setAside).toEqual([
      expect.objectContaining({ item: 'template', reason: 'invalid_field' }),
      expect.objectContaining({ item: 'template', reason: 'invalid_field' }),
    ]);
  });
});

describe('parseWhatsappNotification: a failed status with 131050', () => {
  const failed = (code: number) =>
    accountNotification(
      'messages',
      numberValue({
        statuses: [
          {
            id: 'wamid.HBgLMTY1MDM4Nzk0MzkVAgARGBJDQjZCMzlEQUE4OTJBMTE4RTUA',
            status: 'failed',
            timestamp: '1731705721',
            recipient_id: '16505551234',
            errors: [{ code, title: 'Unable to deliver the message.' }],
          },
        ],
      }),
    );

  it('names the recipient who stopped marketing messages; another error names nobody', () => {
    expect(parseWhatsappNotification(failed(131050)).read[0].event).toMatchObject({
      kind: 'status',
      stoppedMarketing: '+16505551234',
    });
    expect(parseWhatsappNotification(failed(131049)).read[0].event).not.toHaveProperty(
      'stoppedMarketing',
    );
  });
});
