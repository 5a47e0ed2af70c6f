import { ApiProperty } from '@nestjs/swagger';
import { IsIn, IsString, Matches } from 'class-validator';

export const SENDER_ACTIONS = ['typing_on', 'typing_off', 'mark_seen'] as const;
export type SenderAction = (typeof SENDER_ACTIONS)[number];

/** `{ to, action }`: a sender action shown to a person in a Page's conversation. */
export class SendMessangerSenderActionDto {
  @ApiProperty({
    example: '6543210987654321',
    description: 'The page-scoped id (PSID) of the person, as the Messenger send takes it.',
  })
  @IsString()
  @Matches(/^\d{1,32}$/, { message: '$property must be a page-scoped id (digits)' })
  to!: string;

  @ApiProperty({
    enum: SENDER_ACTIONS,
    example: 'typing_on',
    description:
      '`typing_on` shows the typing bubble (Meta turns it off after 20 seconds, or when the Page sends a message), `typing_off` hides it, `mark_seen` marks the last message seen.',
  })
  @IsIn(SENDER_ACTIONS)
  action!: SenderAction;
}
