import {
  SANDBOX_CONVERSATIONS,
  SANDBOX_MESSAGES_PER_CONVERSATION,
  SANDBOX_ORGANIZATIONS,
  SandboxConversations,
  SandboxMessage,
} from './sandbox-conversations';

let ids = 0;
const aMessage = (
  organizationId: string,
  client: string,
  overrides: Partial<SandboxMessage> = {},
): SandboxMessage => ({
  id: `wamid.${(ids += 1)}`,
  kind: 'whatsapp',
  channelId: `channel-of-${organizationId}`,
  organizationId,
  senderId: '106540352242922',
  client,
  direction: 'to_client',
  type: 'text',
  body: {},
  state: 'accepted',
  at: ids,
  stateAt: {},
  ...overrides,
});
const ref = (organizationId: string, client: string) => ({
  organizationId,
  channelId: `channel-of-${organizationId}`,
  client,
});

describe('SandboxConversations', () => {
  it('never forgets one organization’s conversation for another’s traffic', () => {
    const conversations = new SandboxConversations();
    const kept = conversations.add(aMessage('quiet', '1', { direction: 'from_client' }));
    for (let i = 0; i <= SANDBOX_CONVERSATIONS; i++) {
      conversations.add(aMessage('chatty', `client-${i}`));
    }
    expect(conversations.conversation(ref('quiet', '1'))).toEqual([kept]);
    expect(conversations.lastFromClient(ref('quiet', '1'))).toBe(kept.at);
    expect(conversations.find(kept.id)).toBe(kept);
    // The chatty one's own least recently active conversation went.
    expect(conversations.conversation(ref('chatty', 'client-0'))).toEqual([]);
    expect(conversations.clientsOf('chatty', 'channel-of-chatty')).toHaveLength(
      SANDBOX_CONVERSATIONS,
    );
  });

  it('keeps the client’s last message time when the agent’s messages push it out', () => {
    const conversations = new SandboxConversations();
    const written = conversations.add(aMessage('org', '1', { direction: 'from_client' }));
    for (let i = 0; i < SANDBOX_MESSAGES_PER_CONVERSATION; i++) {
      conversations.add(aMessage('org', '1'));
    }
    expect(conversations.find(written.id)).toBeUndefined();
    expect(conversations.lastFromClient(ref('org', '1'))).toBe(written.at);
  });

  it('keeps conversations apart by channel, though the number is the same', () => {
    const conversations = new SandboxConversations();
    conversations.add(aMessage('a', '1', { direction: 'from_client' }));
    expect(conversations.lastFromClient(ref('b', '1'))).toBeUndefined();
    expect(
      conversations.lastFromClient({ organizationId: 'a', channelId: 'another', client: '1' }),
    ).toBeUndefined();
    expect(conversations.clientsOf('b', 'channel-of-b')).toEqual([]);
  });

  it('forgets the least recently active organization past its count', () => {
    const conversations = new SandboxConversations();
    for (let i = 0; i <= SANDBOX_ORGANIZATIONS; i++) conversations.add(aMessage(`org-${i}`, '1'));
    expect(conversations.conversation(ref('org-0', '1'))).toEqual([]);
    expect(conversations.conversation(ref('org-1', '1'))).toHaveLength(1);
  });
});
