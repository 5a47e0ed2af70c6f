import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsObject, IsString, Length } from 'class-validator';
import { FreeFormJson, IsOptionalNotNull } from '../../common/http/validation.decorators';

/** A simulated client's message: `text`, or `message` in Meta's own shape. */
export class SandboxInboundDto {
  @ApiProperty({
    description:
      'The client: an E.164 phone number for WhatsApp (`+34612345678`), a page-scoped id (digits) for Messenger. A WhatsApp number ending in 0000 never receives anything sent to it (docs/sandbox.md).',
    example: '+34612345678',
  })
  @IsString()
  @Length(1, 64)
  from!: string;

  @ApiPropertyOptional({
    description:
      'A text message (give `text` or `message`). `STOP` goes through like any text: agentline’s opt-out handles it.',
    example: 'Hi! Is my order on its way?',
  })
  @IsOptionalNotNull()
  @IsString()
  @Length(1, 4096)
  text?: string;

  @ApiPropertyOptional({
    description:
      "Any message in Meta's shape (give `text` or `message`). WhatsApp: the `messages[]` item of a notification without `from`, `id` and `timestamp`, which the sandbox adds: `{ type: 'image', image: { id: '<a sandbox media id>' } }`, `location`, `interactive` (`button_reply`, `list_reply`), `button`, `reaction`, `contacts`, with an optional `context`. Messenger: the `message` of a messaging event without `mid` (`text`, `attachments`, `quick_reply`), or `{ reaction: {...} }` / `{ postback: {...} }` for those events.",
    type: 'object',
    additionalProperties: true,
    example: {
      type: 'interactive',
      interactive: { type: 'button_reply', button_reply: { id: 'confirm', title: 'Confirm' } },
    },
  })
  @IsOptionalNotNull()
  @IsObject({ message: 'message must be a JSON object' })
  @FreeFormJson()
  message?: Record<string, unknown>;

  @ApiPropertyOptional({
    description: "WhatsApp: the client's profile name in the notification's `contacts`.",
    example: 'Ana García',
    default: 'Sandbox client',
  })
  @IsOptionalNotNull()
  @IsString()
  @Length(1, 256)
  name?: string;
}

export class SandboxInboundResultDto {
  @ApiProperty({
    description:
      "Meta's id of the client's message: a `wamid.…` (WhatsApp) or an `m_…` mid (Messenger).",
    example: 'wamid.HBgLMzQ2MTIzNDU2NzgVAgASGBQ2QjFFNzM1QUQ5RjRDQTg4RjlFRQA=',
  })
  message_id!: string;

  @ApiProperty({
    enum: ['received', 'failed'],
    description:
      "`received`: the channel's webhook took the signed notification (200), and processes it as Meta's; `failed`: it refused it (`reason` says how).",
  })
  state!: 'received' | 'failed';

  @ApiPropertyOptional({
    description: 'Why the webhook did not take it.',
    example: "The channel's webhook answered HTTP 401",
  })
  reason?: string;
}
