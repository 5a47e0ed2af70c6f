import type { Clock } from '../../common/clock';
import { ProblemException } from '../../common/http/problem';
import type { ChannelMessageSender } from '../channel-message-sender';
import type { ChannelConversations } from '../conversations/channel-conversations';
import type { ChannelKinds } from '../kinds/channel-kinds';
import type { TemplateSendChecks } from '../kinds/whatsapp/templates/template-send-checks';
import { ChannelMessagesService } from './channel-messages.service';
import type { MessageOutbox } from './message-outbox';

/** A collaborator the code under test must not reach: any use of it fails the test. */
const untouched = <T>(name: string): T =>
  new Proxy({} as object, {
    get: (_, property) => {
      throw new Error(`${name}.${String(property)} was used`);
    },
  }) as T;

const principal = { organizationId: 'org_acme', subject: 'user_alice' };
const channelId = '0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b';

// A build without the scheduler registers no outbox: sending answers 503 before any channel lookup.
describe('ChannelMessagesService without an outbox', () => {
  const service = new ChannelMessagesService(
    untouched<ChannelMessageSender>('channels'),
    untouched<ChannelConversations>('conversations'),
    untouched<ChannelKinds>('kinds'),
    untouched<TemplateSendChecks>('templates'),
    untouched<Clock>('clock'),
  );

  it.each([
    [
      'a WhatsApp send',
      () => service.sendWhatsapp(principal, channelId, { to: '+34612345678', text: 'Hi' }),
    ],
    [
      'a Messenger send',
      () => service.sendMessanger(principal, channelId, { to: '6543210987654321', text: 'Hi' }),
    ],
    ["a channel's deliveries", () => service.deliveries(principal, 'whatsapp', channelId, {})],
  ])('answers 503 outbox_unavailable to %s', async (_, call) => {
    const failure = await call().catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ProblemException);
    expect(failure).toMatchObject({ code: 'outbox_unavailable', status: 503 });
  });

  it('takes one outbox only', () => {
    const withOutbox = new ChannelMessagesService(
      untouched<ChannelMessageSender>('channels'),
      untouched<ChannelConversations>('conversations'),
      untouched<ChannelKinds>('kinds'),
      untouched<TemplateSendChecks>('templates'),
      untouched<Clock>('clock'),
    );
    withOutbox.useOutbox(untouched<MessageOutbox>('outbox'));
    expect(() => withOutbox.useOutbox(untouched<MessageOutbox>('outbox'))).toThrow(
      'A message outbox is already registered',
    );
  });
});
