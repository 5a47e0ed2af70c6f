import type { AgentEventDocumentations } from '../agent-events';
import { ChannelMessageDto } from './conversations/conversation.dto';
import { MessangerChannelDto } from './kinds/messanger/messanger-channel.dto';
import { WhatsappChannelDto } from './kinds/whatsapp/whatsapp-channel.dto';
import { ChannelErrorEventDto } from './webhooks/channel-error-event.dto';

/*
 * The agent events channels emit, for the OpenAPI document's `webhooks`. Each example is typed as
 * the class its emitter maps to, and test/openapi.e2e-spec.ts validates it against the schema.
 */

const ORGANIZATION = 'org_acme';
const AGENT = 'agent_support_es';
const WHATSAPP_CHANNEL = '0190c8a0-0000-7000-8000-000000000001';
const PUBLIC_URL = 'https://agentline.example.com';

const whatsappChannel = (changes: Partial<WhatsappChannelDto>): WhatsappChannelDto => ({
  id: WHATSAPP_CHANNEL,
  agent_id: AGENT,
  organization_id: ORGANIZATION,
  created_by: 'user_alice',
  verification_token: 'b4e1c7a9d2f64e8b9a0c3d5e7f1a2b3c',
  webhook_url: `${PUBLIC_URL}/v1/webhooks/whatsapp/${WHATSAPP_CHANNEL}`,
  status_reason: null,
  created_at: 1763800000000,
  updated_at: 1763800000000,
  number_id: '106540352242922',
  status: 'active',
  type: 'Whatsapp',
  business_account_id: '102290129340398',
  templates: { synced_at: 1763803600000, sync_error: null },
  ...changes,
});

const MEDIA_ID = '1013859600285441';

/** A photo with a caption, replying to the business's message, as the handler maps it. */
const RECEIVED_PHOTO: ChannelMessageDto = {
  id: '019ab0c2-9a41-7b3e-8c2d-4f5e6a7b8c9d',
  channel_id: WHATSAPP_CHANNEL,
  from: '+34612345678',
  from_user_id: null,
  profile: { name: 'Ana', username: null },
  message_id: 'wamid.HBgLMzQ2MTIzNDU2NzgVAgASGBQzQUI0RjJDMEQ3RTlBMTU2QjFGMgA=',
  type: 'image',
  text: 'Is this the one?',
  content: {
    media_id: MEDIA_ID,
    mime_type: 'image/jpeg',
    sha256: 'GKhXYTjdVBrHC4/1cuwGCUdh5GgmNdpBWCpkzgl6Vas=',
    filename: null,
    caption: 'Is this the one?',
    voice: null,
    animated: null,
    url: `${PUBLIC_URL}/v1/channels/whatsapp/${WHATSAPP_CHANNEL}/media/${MEDIA_ID}`,
  },
  context: {
    message_id: 'wamid.HBgLMzQ2MTIzNDU2NzgVAgARGBJCQTk5RjQ3QzU2MkI1RDg0QQA=',
    from: '15550783881',
    forwarded: false,
    frequently_forwarded: false,
  },
  referral: null,
  raw: {
    from: '34612345678',
    id: 'wamid.HBgLMzQ2MTIzNDU2NzgVAgASGBQzQUI0RjJDMEQ3RTlBMTU2QjFGMgA=',
    timestamp: '1763800800',
    type: 'image',
    context: {
      from: '15550783881',
      id: 'wamid.HBgLMzQ2MTIzNDU2NzgVAgARGBJCQTk5RjQ3QzU2MkI1RDg0QQA=',
    },
    image: {
      caption: 'Is this the one?',
      mime_type: 'image/jpeg',
      sha256: 'GKhXYTjdVBrHC4/1cuwGCUdh5GgmNdpBWCpkzgl6Vas=',
      id: MEDIA_ID,
    },
  },
  received_at: 1763800800000,
};

const envelope = { organization_id: ORGANIZATION, agent_id: AGENT, channel_id: WHATSAPP_CHANNEL };

export const CHANNEL_AGENT_EVENTS: Pick<
  AgentEventDocumentations,
  'message.received' | 'channel.deactivated' | 'channel.templates_sync_failed' | 'channel.error'
> = {
  'message.received': {
    summary: 'A client wrote to the channel',
    description:
      'Once per Meta message id, whatever its type: text, media, location, contacts, button and list replies, reactions, edits, Messenger postbacks and attachments. `data` is the message as `GET /v1/channels/{kind}/{id}/messages` lists it; `content` is shaped by `type` (docs/webhooks.md), `raw` is what Meta sent.',
    data: ChannelMessageDto,
    example: { type: 'message.received', ...envelope, data: RECEIVED_PHOTO },
  },
  'channel.deactivated': {
    summary: 'Meta refused the channel’s token: sends stop',
    description:
      'Meta answered 190 (or HTTP 401) to a send: the channel is `inactive`, with Meta’s code and message in `status_reason`, until a `PUT` gives it a new `access_token`. `data` is the channel as `GET /v1/channels/{kind}/{id}` shows it.',
    data: [WhatsappChannelDto, MessangerChannelDto],
    example: {
      type: 'channel.deactivated',
      ...envelope,
      data: whatsappChannel({
        status: 'inactive',
        status_reason: {
          code: '190',
          message:
            'Error validating access token: Session has expired on Friday, 21-Nov-25 09:00:00 PST.',
        },
        updated_at: 1763805600000,
      }),
    },
  },
  'channel.templates_sync_failed': {
    summary: 'The WhatsApp template catalog could not be synced',
    description:
      'A sync of the channel’s template catalog failed with another error than the last one (Graph 4xx/5xx, a time-out, an answer that is not a listing, a refused token); the last catalog is kept and the same failure is not told again. `data` is the channel, with `templates.sync_error`.',
    data: WhatsappChannelDto,
    example: {
      type: 'channel.templates_sync_failed',
      ...envelope,
      data: whatsappChannel({
        templates: {
          synced_at: 1763803600000,
          sync_error: {
            message:
              'Graph API answered HTTP 400 (100): Unsupported get request. Object with ID 102290129340398 does not exist',
            failed_at: 1763804500000,
          },
        },
      }),
    },
  },
  'channel.error': {
    summary: 'Meta reported errors about the channel’s account',
    description:
      'WhatsApp’s value-level `errors` of a notification (such as 131000), about the account rather than one message; Meta does not say them twice.',
    data: ChannelErrorEventDto,
    example: {
      type: 'channel.error',
      ...envelope,
      data: {
        channel_id: WHATSAPP_CHANNEL,
        field: 'messages',
        errors: [
          {
            code: '131000',
            title: 'Something went wrong',
            message: 'Something went wrong',
            details: 'Message failed to send because of an unknown error.',
          },
        ],
      } satisfies ChannelErrorEventDto,
    },
  },
};
