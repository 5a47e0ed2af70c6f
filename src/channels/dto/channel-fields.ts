import { applyDecorators } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsNotEmpty, IsOptional, IsString, Matches, MaxLength } from 'class-validator';

const identifier = (max: number) => [
  IsString(),
  IsNotEmpty(),
  MaxLength(max),
  Matches(/^\S+$/, { message: '$property must not contain whitespace' }),
];

/**
 * A Meta id (WhatsApp phone number id, Page id): a numeric string. Only digits, so that it can
 * never be a path of its own in the Graph URL it goes into (`/v23.0/{id}/messages`).
 */
const metaId = () => [
  IsString(),
  IsNotEmpty(),
  MaxLength(64),
  Matches(/^[0-9]+$/, { message: '$property must be a Meta id: digits only' }),
];

/** Field rules shared by the channel DTOs, so that create and update validate alike. */
export const AgentIdField = () =>
  applyDecorators(ApiProperty({ example: 'agent_support_es', maxLength: 200 }), ...identifier(200));

export const AccessTokenField = (required: boolean) =>
  applyDecorators(
    (required ? ApiProperty : ApiPropertyOptional)({
      description: 'Meta access token. Stored encrypted; never returned.',
      example: 'EAAG...',
      maxLength: 4096,
      writeOnly: true,
    }),
    ...(required ? [] : [IsOptional()]),
    ...identifier(4096),
  );

export const NumberIdField = (required: boolean) =>
  applyDecorators(
    (required ? ApiProperty : ApiPropertyOptional)({
      description: 'WhatsApp Cloud API phone number id (digits).',
      example: '106540352242922',
      maxLength: 64,
      pattern: '^[0-9]+$',
    }),
    ...(required ? [] : [IsOptional()]),
    ...metaId(),
  );

export const UserIdField = () =>
  applyDecorators(
    ApiProperty({
      description: 'Facebook Page id (digits) the channel speaks as.',
      example: '1029384756',
      maxLength: 64,
      pattern: '^[0-9]+$',
    }),
    ...metaId(),
  );
