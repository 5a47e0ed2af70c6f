import type { Test } from 'supertest';
import { aFollowUp, aMessangerChannel, anOutgoingMessage, aWhatsappChannel } from './factories';
import {
  aWhatsappText,
  messangerNotification,
  postToWebhook,
  whatsappNotification,
} from './meta-webhooks';
import type { TestApp } from './test-app';

/**
 * What a test needs to exist before it acts, created as a client would: through the HTTP API,
 * never by writing tables. Each takes the app, the caller's headers and only what the test is
 * about; the rest comes from the valid requests in factories.ts. An unexpected answer fails the
 * test with the problem agentline gave, so a broken set-up does not read as a broken assertion.
 */

/** Whatever speaks HTTP to agentline: an app of this process, or a supertest of a service's URL. */
export type Api = Pick<TestApp, 'http'>;
export type Auth = Record<string, string>;
type Overrides = Record<string, unknown>;

export type ChannelKind = 'whatsapp' | 'messanger';

/** The public answer for a channel (openapi.json, WhatsappChannelDto and MessangerChannelDto). */
interface ChannelBase {
  id: string;
  agent_id: string;
  type: string;
  organization_id: string;
  created_by: string;
  verification_token: string;
  webhook_url: string;
  status_reason: unknown;
  created_at: number;
  updated_at: number;
}
export interface WhatsappChannel extends ChannelBase {
  number_id: string;
  status: string;
}
export interface MessangerChannel extends ChannelBase {
  user_id: string;
}
interface Channels {
  whatsapp: WhatsappChannel;
  messanger: MessangerChannel;
}

/** openapi.json, FollowUpDto, as its creation answers it (a new follow-up has a next run). */
export interface FollowUp {
  id: string;
  agent_id: string;
  channel_id: string;
  channel_type: string;
  client_phone_numbers: string[];
  frequency: string;
  prompt: string;
  title: string;
  description: string | null;
  time_zone: string;
  template: unknown;
  status: string;
  next_run_at: number;
  last_run_at: number | null;
  organization_id: string;
  created_by: string;
  created_at: number;
  updated_at: number;
}

/** openapi.json, DeliveryDto, as the send-now endpoint answers it. */
export interface QueuedDelivery {
  id: string;
  channel_id: string;
  phone: string;
  status: string;
  [field: string]: unknown;
}

/** The answer's body when its status is `status`; otherwise an error that shows what came back. */
async function answered(request: Test, status: number): Promise<Record<string, unknown>> {
  const res = await request;
  if (res.status !== status) {
    const { method, url } = request as unknown as { method: string; url: string };
    throw new Error(`Set-up ${method} ${url} answered ${res.status}, not ${status}: ${res.text}`);
  }
  return res.body as Record<string, unknown>;
}

/** A channel of `kind` created by `auth`'s organization, from `aWhatsappChannel(overrides)` or its Messanger twin. */
export async function givenChannel<K extends ChannelKind>(
  api: Api,
  auth: Auth,
  kind: K,
  overrides: Overrides = {},
): Promise<Channels[K]> {
  const body = kind === 'whatsapp' ? aWhatsappChannel(overrides) : aMessangerChannel(overrides);
  const request = api.http().post(`/v1/channels/${kind}`).set(auth).send(body);
  return (await answered(request, 201)).data as Channels[K];
}

export const givenWhatsappChannel = (api: Api, auth: Auth, overrides: Overrides = {}) =>
  givenChannel(api, auth, 'whatsapp', overrides);

export const givenMessangerChannel = (api: Api, auth: Auth, overrides: Overrides = {}) =>
  givenChannel(api, auth, 'messanger', overrides);

/** A WhatsApp follow-up on the channel, from `aFollowUp(channelId, overrides)`. */
export async function givenFollowUp(
  api: Api,
  auth: Auth,
  channelId: string,
  overrides: Overrides = {},
): Promise<FollowUp> {
  const request = api
    .http()
    .post('/v1/scheduler/follow-up/whatsapp')
    .set(auth)
    .send(aFollowUp(channelId, overrides));
  return (await answered(request, 201)) as unknown as FollowUp;
}

/** A message sent now through the channel (`anOutgoingMessage(overrides)`), queued: its delivery. */
export async function givenOutgoingMessage(
  api: Api,
  auth: Auth,
  channel: { id: string },
  overrides: Overrides = {},
  kind: ChannelKind = 'whatsapp',
): Promise<QueuedDelivery> {
  const request = api
    .http()
    .post(`/v1/channels/${kind}/${channel.id}/messages`)
    .set(auth)
    .send(anOutgoingMessage(overrides));
  return (await answered(request, 202)).data as QueuedDelivery;
}

/** Meta's notification of the channel's messages or statuses, signed with `secret` and accepted. */
export async function givenWhatsappNotification(
  api: Api,
  channel: { id: string; number_id: string },
  secret: string,
  value: { messages?: unknown[]; statuses?: unknown[] },
): Promise<void> {
  const payload = whatsappNotification(channel.number_id, value);
  await answered(postToWebhook(api, 'whatsapp', channel.id, payload, secret), 200);
}

/**
 * A client's text to the WhatsApp channel, as Meta delivers it (a signed webhook, accepted);
 * `message` overrides `aWhatsappText`'s fields. Answers the message as Meta sent it.
 */
export async function givenInboundMessage(
  api: Api,
  channel: { id: string; number_id: string },
  secret: string,
  message: Parameters<typeof aWhatsappText>[0] = {},
): Promise<ReturnType<typeof aWhatsappText>> {
  const text = aWhatsappText(message);
  await givenWhatsappNotification(api, channel, secret, { messages: [text] });
  return text;
}

/** Meta's notification of a Messenger page: `events` from the person `psid`, signed and accepted. */
export async function givenMessangerNotification(
  api: Api,
  channel: { id: string; user_id: string },
  secret: string,
  psid: string,
  events: Record<string, unknown>[],
): Promise<void> {
  const payload = messangerNotification(channel.user_id, psid, events);
  await answered(postToWebhook(api, 'messanger', channel.id, payload, secret), 200);
}
