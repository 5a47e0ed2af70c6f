import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsNotEmpty, IsString, Matches, MaxLength, ValidateNested } from 'class-validator';
import { IsOptionalNotNull } from '../../common/http/validation.decorators';
import { FollowUpTemplateDto } from '../kinds/whatsapp/templates/template-message.dto';
import { BSUID, BSUID_MAX_LENGTH } from '../kinds/whatsapp/whatsapp-number-forms';
import { WhatsappRichFieldsDto } from '../kinds/whatsapp/whatsapp-message.dto';
import { MessangerRichFieldsDto } from '../kinds/messanger/messanger-message.dto';

// The template a send or a follow-up carries lives in the WhatsApp kind's folder.
export {
  FollowUpTemplateDto,
  MAX_TEMPLATE_PARAMETERS,
  toMessageTemplate,
} from '../kinds/whatsapp/templates/template-message.dto';
export type { MessageTemplate } from '../kinds/whatsapp/templates/template-message.dto';

/**
 * `{ to, text }`, `{ to, template }` or one rich message (WhatsApp's own fields, in the kind's
 * folder): a WhatsApp message sent now; `to_user_id` instead of `to` for a person Meta names only
 * by their business-scoped user id.
 */
export class SendWhatsappMessageDto extends WhatsappRichFieldsDto {
  @ApiPropertyOptional({
    example: '+34612345678',
    description: 'E.164 ("+" optional). Send `to` or `to_user_id`, exactly one.',
  })
  @IsOptionalNotNull()
  @IsString()
  @IsNotEmpty()
  @MaxLength(32)
  to?: string;

  @ApiPropertyOptional({
    example: 'US.13491208655302741918',
    maxLength: BSUID_MAX_LENGTH,
    pattern: BSUID.source,
    description:
      "The person's business-scoped user id (BSUID, an item's `from_user_id`), for a user whose phone number Meta withholds; sent to Meta as `recipient`. Send `to` or `to_user_id`, exactly one.",
  })
  @IsOptionalNotNull()
  @IsString()
  @MaxLength(BSUID_MAX_LENGTH)
  @Matches(BSUID, {
    message: '$property must be a business-scoped user id such as US.13491208655302741918',
  })
  to_user_id?: string;

  @ApiPropertyOptional({
    maxLength: 4096,
    description:
      'Free-form text (inside the 24-hour window). Send exactly one of `text`, `template` or a rich message field.',
    example: 'Your order has shipped; it arrives on Thursday.',
  })
  @IsOptionalNotNull()
  @IsString()
  @IsNotEmpty()
  @MaxLength(4096)
  text?: string;

  @ApiPropertyOptional({
    type: FollowUpTemplateDto,
    description:
      "A pre-approved template, the only kind of message Meta delivers outside the 24-hour window; its parameters are sent as given. With the channel's template catalog it must exist in that language, be APPROVED and get exactly the parameters its components need (else 422 template_invalid). Send exactly one of `text`, `template` or a rich message field.",
  })
  @IsOptionalNotNull()
  @ValidateNested()
  @Type(() => FollowUpTemplateDto)
  template?: FollowUpTemplateDto;
}

/**
 * `{ to, text }` (with `quick_replies`) or `{ to, attachment }`: a Messenger reply sent now,
 * inside Messenger's 24-hour window, or outside it with a message `tag`.
 */
export class SendMessangerMessageDto extends MessangerRichFieldsDto {
  @ApiProperty({
    example: '6543210987654321',
    description: 'The page-scoped id (PSID) of the person.',
  })
  @IsString()
  @Matches(/^\d{1,32}$/, { message: '$property must be a page-scoped id (digits)' })
  to!: string;

  @ApiPropertyOptional({
    maxLength: 2000,
    example: 'Your order has shipped; it arrives on Thursday.',
    description:
      'The text (with `quick_replies` if any). Send `text` or `attachment`, exactly one.',
  })
  @IsOptionalNotNull()
  @IsString()
  @IsNotEmpty()
  @MaxLength(2000)
  text?: string;
}
