import { ApiProperty } from '@nestjs/swagger';

/** One of Meta's `errors[]` about a channel's account (MetaReportedError), as the agent gets it. */
export class MetaReportedErrorDto {
  @ApiProperty({ example: '131000', description: "Meta's error code, as a string." })
  code!: string;
  @ApiProperty({ type: String, nullable: true, example: 'Something went wrong' })
  title!: string | null;
  @ApiProperty({ type: String, nullable: true, example: 'Something went wrong' })
  message!: string | null;
  @ApiProperty({
    type: String,
    nullable: true,
    description: "Meta's `error_data.details`.",
    example: 'Message failed to send because of an unknown error.',
  })
  details!: string | null;
}

/** The `data` of a `channel.error` event (AccountErrorsHandler). */
export class ChannelErrorEventDto {
  @ApiProperty({ format: 'uuid' }) channel_id!: string;
  @ApiProperty({
    example: 'messages',
    description: 'The field of the notification the errors came in.',
  })
  field!: string;
  @ApiProperty({ type: [MetaReportedErrorDto] }) errors!: MetaReportedErrorDto[];
}
