import { readAgentEventsConfig } from './agent-events.config';

describe('readAgentEventsConfig', () => {
  it('is off by default, with a 10 s time-out and three days of retries', () => {
    expect(readAgentEventsConfig({})).toEqual({ timeoutMs: 10_000, maxAgeMs: 3 * 86_400_000 });
  });

  it('takes the URL with its secret', () => {
    expect(
      readAgentEventsConfig({
        AGENT_EVENTS_URL: 'https://agent.example.com/events',
        AGENT_EVENTS_SECRET: 'a-passphrase-of-24-characters',
        AGENT_EVENTS_TIMEOUT_MS: '2000',
      }),
    ).toMatchObject({
      target: {
        url: 'https://agent.example.com/events',
        secret: 'a-passphrase-of-24-characters',
      },
      timeoutMs: 2000,
    });
  });

  it('refuses one without the other, a short secret and a whsec_ that is not base64', () => {
    expect(() => readAgentEventsConfig({ AGENT_EVENTS_URL: 'https://a.example.com' })).toThrow(
      /AGENT_EVENTS_SECRET: must be set with AGENT_EVENTS_URL/,
    );
    expect(() =>
      readAgentEventsConfig({ AGENT_EVENTS_SECRET: 'a-passphrase-of-24-characters' }),
    ).toThrow(/AGENT_EVENTS_URL: must be set with AGENT_EVENTS_SECRET/);
    expect(() =>
      readAgentEventsConfig({
        AGENT_EVENTS_URL: 'https://a.example.com',
        AGENT_EVENTS_SECRET: 'short',
      }),
    ).toThrow(/AGENT_EVENTS_SECRET: /);
    expect(() =>
      readAgentEventsConfig({
        AGENT_EVENTS_URL: 'https://a.example.com',
        AGENT_EVENTS_SECRET: 'whsec_not base64 at all, not at all',
      }),
    ).toThrow(/whsec_ secret must be base64/);
  });
});
