import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsString, Matches, MaxLength } from 'class-validator';
import { PaginationQueryDto } from '../../../../common/http/pagination.dto';
import { IsOptionalNotNull } from '../../../../common/http/validation.decorators';
import { TEMPLATE_CATEGORIES, TEMPLATE_STATUSES } from './whatsapp-template.entity';

/** `GET /v1/channels/whatsapp/{id}/templates`: exact filters, paged like every list. */
export class ListWhatsappTemplatesQueryDto extends PaginationQueryDto {
  @ApiPropertyOptional({ description: "Only this template's languages.", example: 'order_shipped' })
  @IsOptionalNotNull()
  @IsString()
  @MaxLength(512)
  name?: string;

  @ApiPropertyOptional({ description: 'Only templates in this language.', example: 'en_US' })
  @IsOptionalNotNull()
  @IsString()
  @MaxLength(64)
  language?: string;

  @ApiPropertyOptional({
    description: `Only templates with this status (Meta's: ${TEMPLATE_STATUSES.join(', ')}).`,
    example: 'APPROVED',
  })
  @IsOptionalNotNull()
  @IsString()
  @Matches(/^[A-Z_]{1,64}$/, { message: '$property must be a template status such as APPROVED' })
  status?: string;
}

/** One template in one language, as Meta last listed it (or a template webhook changed it). */
export class WhatsappTemplateDto {
  @ApiProperty({ example: 'order_shipped' }) name!: string;
  @ApiProperty({ example: 'en_US' }) language!: string;
  @ApiProperty({
    description: `Meta's status: ${TEMPLATE_STATUSES.join(', ')} (kept as Meta sends it).`,
    example: 'APPROVED',
  })
  status!: string;
  @ApiProperty({
    type: String,
    nullable: true,
    description: `${TEMPLATE_CATEGORIES.join(', ')}; null when Meta did not say.`,
    example: 'UTILITY',
  })
  category!: string | null;
  @ApiProperty({ enum: ['POSITIONAL', 'NAMED'] }) parameter_format!: 'POSITIONAL' | 'NAMED';
  @ApiProperty({
    type: 'array',
    items: { type: 'object', additionalProperties: true },
    description: "Meta's components (HEADER, BODY, FOOTER, BUTTONS) exactly as Graph lists them.",
    example: [{ type: 'BODY', text: 'Your order {{1}} ships today.' }],
  })
  components!: unknown[];
  @ApiProperty({
    type: 'integer',
    description: 'When agentline last wrote it (a sync or a template webhook), ms.',
    example: 1763800000000,
  })
  updated_at!: number;
}
