import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsBoolean } from 'class-validator';
import { IsOptionalNotNull } from '../../../common/http/validation.decorators';

/** `{ typing }`: whether to show the typing indicator beside the read receipt. */
export class MarkWhatsappMessageReadDto {
  @ApiPropertyOptional({
    example: true,
    description:
      'Also show the client a typing indicator (Meta\'s `typing_indicator: { type: "text" }`) until the next message is sent, or 25 seconds at most. Default false.',
  })
  @IsOptionalNotNull()
  @IsBoolean()
  typing?: boolean;
}
