import { randomUUID } from 'node:crypto';

/** Valid request bodies; tests override only what they are about. */
export const aWhatsappChannel = (overrides: Record<string, unknown> = {}) => ({
  access_token: `EAAG-wa-${randomUUID()}`,
  agent_id: 'agent-1',
  number_id: String(100000000000000 + Math.floor(Math.random() * 899999999999999)),
  ...overrides,
});

export const aMessangerChannel = (overrides: Record<string, unknown> = {}) => ({
  access_token: `EAAG-fb-${randomUUID()}`,
  agent_id: 'agent-1',
  user_id: String(Math.floor(Math.random() * 1e12)),
  ...overrides,
});

export const aFollowUp = (channelId: string, overrides: Record<string, unknown> = {}) => ({
  agent_id: 'agent-1',
  channel_id: channelId,
  client_phone_numbers: ['+34612345678', '+14155552671'],
  frequency: 'daily',
  prompt: 'Ask {{title}} whether everything went well.',
  title: 'Delivery check-in',
  ...overrides,
});

/** A message to send now; a template instead of the text when `overrides` names one. */
export const anOutgoingMessage = (overrides: Record<string, unknown> = {}) => ({
  to: '+34612345678',
  ...('template' in overrides ? {} : { text: 'Hello' }),
  ...overrides,
});

export const aTool = (overrides: Record<string, unknown> = {}) => ({
  agent_id: 'agent-1',
  name: 'Math.Calculate',
  ...overrides,
});
