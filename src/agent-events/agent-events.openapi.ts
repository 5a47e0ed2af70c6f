import type { Type } from '@nestjs/common';
import { ApiProperty, getSchemaPath, type OpenAPIObject } from '@nestjs/swagger';
import { AGENT_EVENT_TYPES, AgentEventType } from './agent-event.entity';
import { signerFor, webhookId } from './agent-events.sender';

/**
 * How one event type is documented, next to the code that emits it: `data` is the class (or the
 * classes, one per channel kind) the emitter maps its object to, so the schema in the document is
 * the type the code is compiled against.
 */
export interface AgentEventDocumentation {
  summary: string;
  description: string;
  data: Type<object> | readonly Type<object>[];
  /** A whole POSTed body, as the code builds it. */
  example: AgentEventBody;
}

/** The JSON body POSTed to AGENT_EVENTS_URL (AgentEventsOutbox.enqueue builds it). */
export interface AgentEventBody {
  type: AgentEventType;
  organization_id: string;
  agent_id: string;
  channel_id: string;
  data: object;
}

/** Every event type, documented: the compiler names the one a new type forgets. */
export type AgentEventDocumentations = Record<AgentEventType, AgentEventDocumentation>;

/** `message.received` → `MessageReceivedEvent`, the schema of its body. */
const schemaName = (type: AgentEventType) =>
  `${type
    .split(/[._]/)
    .map((word) => word[0].toUpperCase() + word.slice(1))
    .join('')}Event`;

const dataClasses = (documentation: AgentEventDocumentation): Type<object>[] =>
  [documentation.data].flat();

/** The body of one event type, as a named class: the envelope, with its own `type` and `data`. */
function eventBodyClass(type: AgentEventType, documentation: AgentEventDocumentation) {
  const kinds = dataClasses(documentation);
  class EventBody {
    @ApiProperty({ enum: [type], description: 'What happened.' }) type!: AgentEventType;
    @ApiProperty({
      example: 'org_acme',
      description: 'The organization of the channel (the token claim it was created with).',
    })
    organization_id!: string;
    @ApiProperty({ example: 'agent_support_es', description: "The channel's agent." })
    agent_id!: string;
    @ApiProperty({ format: 'uuid', description: 'The channel it happened on.' })
    channel_id!: string;
    @ApiProperty(
      kinds.length === 1
        ? { type: kinds[0], description: 'What the event is about, as the API shows it.' }
        : {
            oneOf: kinds.map((kind) => ({ $ref: getSchemaPath(kind) })),
            description:
              'What the event is about, as the API shows it: one schema per channel kind.',
          },
    )
    data!: object;
  }
  Object.defineProperty(EventBody, 'name', { value: schemaName(type) });
  return EventBody;
}

/**
 * The secret of the examples (the Standard Webhooks specification's own example secret): each
 * example's `webhook-signature` is the real signature of its body, so a receiver's verification
 * can be tried on it.
 */
export const EXAMPLE_EVENTS_SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
const EXAMPLE_EVENT_ID = '019ab0c3-1f2e-7d4c-8b6a-5e4d3c2b1a09';
const EXAMPLE_SENT_AT = 1763800012;

/**
 * Standard Webhooks headers, as AgentEventsSender sets them (docs/agent-events.md explains them),
 * with the example body's own values. Receivers verify them with the `standardwebhooks` library.
 */
function signatureHeaders(example: AgentEventBody) {
  const id = webhookId(EXAMPLE_EVENT_ID);
  const signature = signerFor(EXAMPLE_EVENTS_SECRET).sign(
    id,
    new Date(EXAMPLE_SENT_AT * 1000),
    JSON.stringify(example),
  );
  return [
    {
      name: 'webhook-id',
      description:
        '`msg_` and the event id: the same on every retry of the event, so de-duplicate by it.',
      example: id,
    },
    {
      name: 'webhook-timestamp',
      description: 'Unix seconds of this attempt; refuse one more than 5 minutes from your clock.',
      example: String(EXAMPLE_SENT_AT),
    },
    {
      name: 'webhook-signature',
      description: `\`v1,\` and the base64 HMAC-SHA256 of \`{webhook-id}.{webhook-timestamp}.{raw body}\`, keyed with AGENT_EVENTS_SECRET (a \`whsec_\` secret: its base64-decoded bytes; any other string: its UTF-8 bytes); fresh on every attempt. The example signs the example body (as compact JSON) with the secret \`${EXAMPLE_EVENTS_SECRET}\`.`,
      example: signature,
    },
  ].map(({ name, description, example: value }) => ({
    name,
    in: 'header' as const,
    required: true,
    description,
    schema: { type: 'string' as const },
    example: value,
  }));
}

export interface AgentEventsDocument {
  /** The classes of every event's body and data, for SwaggerModule.createDocument's extraModels. */
  extraModels: Type<object>[];
  /** Adds the `webhooks` of the events (an OpenAPI 3.1 document) once the document is built. */
  addWebhooks(document: OpenAPIObject): void;
}

/**
 * The agent events in the OpenAPI document: one `webhooks` entry per type, each a POST with its
 * body's schema (`MessageReceivedEvent`, ...), an example, the signature headers and the answers
 * that count as received.
 */
export function documentAgentEvents(documentations: AgentEventDocumentations): AgentEventsDocument {
  const bodies = new Map(
    AGENT_EVENT_TYPES.map((type) => [type, eventBodyClass(type, documentations[type])]),
  );
  return {
    extraModels: [
      ...bodies.values(),
      ...AGENT_EVENT_TYPES.flatMap((type) => dataClasses(documentations[type])),
    ],
    addWebhooks(document) {
      document.webhooks = Object.fromEntries(
        AGENT_EVENT_TYPES.map((type) => {
          const { summary, description, example } = documentations[type];
          return [
            type,
            {
              post: {
                operationId: `${type.replace(/[._](\w)/g, (_, letter: string) => letter.toUpperCase())}Event`,
                summary,
                description: `${description}\n\nPOSTed to AGENT_EVENTS_URL, signed per Standard Webhooks; retried with backoff until a 2xx, under the same \`webhook-id\` (docs/agent-events.md).`,
                tags: ['agent events'],
                security: [],
                parameters: signatureHeaders(example),
                requestBody: {
                  required: true,
                  content: {
                    'application/json': {
                      schema: { $ref: getSchemaPath(bodies.get(type) as Type<object>) },
                      example,
                    },
                  },
                },
                responses: {
                  '2XX': { description: 'Received: the event is not sent again.' },
                  '4XX': {
                    description:
                      'Not received (a bad signature, say): sent again with backoff until AGENT_EVENTS_MAX_AGE_MS.',
                  },
                  '5XX': {
                    description:
                      'Not received, as is a time-out (AGENT_EVENTS_TIMEOUT_MS) or a dropped connection: sent again with backoff.',
                  },
                },
              },
            },
          ];
        }),
      );
    },
  };
}
