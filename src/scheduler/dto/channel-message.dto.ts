import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsNotEmpty, IsString, Matches, MaxLength, ValidateNested } from 'class-validator';
import { IsOptionalNotNull } from '../../common/http/validation.decorators';
import { FollowUpTemplateDto } from './follow-up.dto';

/** `{ to, text }` or `{ to, template }`: a WhatsApp message sent now. */
export class SendWhatsappMessageDto {
  @ApiProperty({ example: '+34612345678', description: 'E.164 ("+" optional).' })
  @IsString()
  @IsNotEmpty()
  @MaxLength(32)
  to!: string;

  @ApiPropertyOptional({
    maxLength: 4096,
    description: 'Free-form text (inside the 24-hour window). Send `text` or `template`, not both.',
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
      'A pre-approved template, the only kind of message Meta delivers outside the 24-hour window; its parameters are sent as given. Send `text` or `template`, not both.',
  })
  @IsOptionalNotNull()
  @ValidateNested()
  @Type(() => FollowUpTemplateDto)
  template?: FollowUpTemplateDto;
}

/** `{ to, text }`: a Messenger reply sent now, inside Messenger's 24-hour window. */
export class SendMessangerMessageDto {
  @ApiProperty({
    example: '6543210987654321',
    description: 'The page-scoped id (PSID) of the person.',
  })
  @IsString()
  @Matches(/^\d{1,32}$/, { message: '$property must be a page-scoped id (digits)' })
  to!: string;

  @ApiProperty({ maxLength: 2000, example: 'Your order has shipped; it arrives on Thursday.' })
  @IsString()
  @IsNotEmpty()
  @MaxLength(2000)
  text!: string;
}
