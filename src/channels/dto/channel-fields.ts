import { applyDecorators } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsNotEmpty, IsString, Matches, MaxLength } from 'class-validator';
import { IsOptionalNotNull } from '../../common/http/validation.decorators';

const identifier = (max: number) => [
  IsString(),
  IsNotEmpty(),
  MaxLength(max),
  Matches(/^\S+$/, { message: '$property must not contain whitespace' }),
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
    ...(required ? [] : [IsOptionalNotNull()]),
    ...identifier(4096),
  );

export const NumberIdField = (required: boolean) =>
  applyDecorators(
    (required ? ApiProperty : ApiPropertyOptional)({
      description: 'WhatsApp Cloud API phone number id.',
      example: '106540352242922',
      maxLength: 128,
    }),
    ...(required ? [] : [IsOptionalNotNull()]),
    ...identifier(128),
  );

export const UserIdField = () =>
  applyDecorators(
    ApiProperty({
      description: 'Facebook page (or user) id.',
      example: '1029384756',
      maxLength: 128,
    }),
    ...identifier(128),
  );
