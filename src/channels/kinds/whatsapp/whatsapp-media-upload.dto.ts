import { ApiProperty } from '@nestjs/swagger';

/** An uploaded file: Meta's id for it, and what it was uploaded as. */
export class UploadedMediaDto {
  @ApiProperty({
    example: '1037543291543636',
    description:
      "Meta's media id: send it as `media_id` in an image, video, audio, document or sticker message of this channel (Meta keeps it 30 days).",
  })
  media_id!: string;

  @ApiProperty({
    example: 'image/jpeg',
    description: "The file's MIME type, as Meta was told it (the file part's Content-Type).",
  })
  mime_type!: string;

  @ApiProperty({ example: 48213, description: "The file's size in bytes." })
  size!: number;
}
