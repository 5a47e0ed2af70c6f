import { Controller, Get, HttpCode, Param, Post, Req, Res } from '@nestjs/common';
import {
  ApiBearerAuth,
  ApiBody,
  ApiConsumes,
  ApiCreatedResponse,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
  ApiProduces,
  ApiTags,
} from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { CurrentPrincipal, Principal } from '../../../common/auth/principal';
import { ApiProblemResponses, DataEnvelope } from '../../../common/http/openapi.decorators';
import { ApiWhatsappChannelId } from '../../channels.openapi';
import { GRAPH_ACTION_PROBLEMS } from '../meta/graph-call';
import { UploadedMediaDto } from './whatsapp-media-upload.dto';
import { WhatsappMediaUploadService } from './whatsapp-media-upload.service';
import { WHATSAPP_MEDIA_KINDS } from './whatsapp-media-types';
import { notFoundDetail } from '../../../common/http/problem';
import { WhatsappMediaService } from './whatsapp-media.service';

const MEDIA_ID_EXAMPLE = '1037543291543636';

/** Inbound media of a WhatsApp channel, streamed from Meta. */
@ApiTags('channels')
@ApiBearerAuth()
@ApiProblemResponses(401)
@Controller('v1/channels')
export class WhatsappMediaController {
  constructor(
    private readonly media: WhatsappMediaService,
    private readonly uploads: WhatsappMediaUploadService,
  ) {}

  @Post('whatsapp/:id/media')
  @HttpCode(201)
  @ApiOperation({
    summary: 'Upload a file to send on a WhatsApp channel',
    operationId: 'uploadWhatsappMedia',
    description: `Uploads one file (multipart/form-data, field \`file\`, with the file's \`Content-Type\`) to Meta for the channel's number: Graph \`POST /{number_id}/media\` (\`messaging_product\`, \`type\`, \`file\`), the file streamed as it arrives, never held whole. Answers 201 with Meta's \`media_id\`, to send as an image, video, audio, document or sticker by \`media_id\`; Meta keeps an uploaded file 30 days. Meta's types and limits are checked as the bytes arrive: ${Object.entries(
      WHATSAPP_MEDIA_KINDS,
    )
      .map(
        ([kind, rule]) => `${kind} (${rule.mimeTypes.join(', ')}; at most ${rule.maxBytes} bytes)`,
      )
      .join(
        '; ',
      )}; a static sticker at most 102400 bytes; never more than \`MEDIA_MAX_BYTES\`. A file of another type answers 415, a larger one 413 (the upload to Meta is stopped), both naming \`file\`; a body that is not multipart/form-data 415; no file, two files or another field 400.`,
  })
  @ApiWhatsappChannelId()
  @ApiConsumes('multipart/form-data')
  @ApiBody({
    schema: {
      type: 'object',
      required: ['file'],
      properties: {
        file: {
          type: 'string',
          format: 'binary',
          description:
            "The file, with its own Content-Type (image/jpeg, application/pdf, ...): what Meta is told it is. curl: `-F 'file=@photo.jpg;type=image/jpeg'`.",
        },
      },
    },
  })
  @ApiCreatedResponse({
    type: DataEnvelope(UploadedMediaDto),
    description: 'Meta has the file: its media id, to send by `media_id`.',
  })
  @ApiProblemResponses(
    {
      code: 'validation_failed',
      detail: 'Send one file, in a multipart/form-data field named file.',
    },
    {
      code: 'not_found',
      detail: notFoundDetail('WhatsApp channel'),
    },
    {
      code: 'media_too_large',
      detail: "The file is larger than 5242880 bytes (Meta's limit for an image).",
    },
    {
      code: 'unsupported_media_type',
      detail: 'WhatsApp does not take image/gif files.',
    },
    ...GRAPH_ACTION_PROBLEMS('take the upload'),
  )
  async uploadWhatsappMedia(
    @CurrentPrincipal() principal: Principal,
    @Param('id') id: string,
    @Req() request: Request,
    @Res({ passthrough: true }) response: Response,
  ): Promise<UploadedMediaDto> {
    // The client going away stops the upload to Meta.
    const gone = new AbortController();
    response.once('close', () => gone.abort());
    return this.uploads.upload(principal, id, {
      headers: request.headers,
      body: request,
      signal: gone.signal,
    });
  }

  @Get('whatsapp/:id/media/:media_id')
  @ApiOperation({
    summary: 'Download a media file a client sent to a WhatsApp channel',
    operationId: 'downloadWhatsappMedia',
    description:
      "Streams the file of an inbound image, video, audio, document or sticker (its `content.media_id`), fetched from Meta with the channel's token: Graph `GET /{media_id}`, then the short-lived URL it answers. The answer carries Meta's `Content-Type`, `Content-Length` when Meta sends one, and `Content-Disposition: attachment` (with the filename when it is known). Meta keeps a received media id for 7 days; after that, or for an id Meta does not know, 404 `media_not_found`. A file larger than `MEDIA_MAX_BYTES` answers 413 when Meta announces its size, and is cut (the transfer ends early, the log says why) when the bytes exceed it.",
  })
  @ApiParam({
    name: 'id',
    description:
      "The WhatsApp channel's id: `data.id` in the answer of POST /v1/channels/whatsapp, or of an item of GET /v1/channels/whatsapp.",
  })
  @ApiParam({
    name: 'media_id',
    description:
      "Meta's media id, as an inbound message's `content.media_id` gives it (letters, digits, `_` and `-`, up to 128).",
    example: MEDIA_ID_EXAMPLE,
  })
  @ApiProduces('application/octet-stream')
  @ApiOkResponse({
    description:
      "The file's bytes, streamed; `Content-Type` is the media's own (`image/jpeg`, `application/pdf`, ...).",
    content: { 'application/octet-stream': { schema: { type: 'string', format: 'binary' } } },
    headers: {
      'Content-Type': {
        description: "The media's MIME type, as Meta gives it.",
        schema: { type: 'string' },
      },
      'Content-Length': {
        description: 'The size in bytes, when Meta sends it.',
        schema: { type: 'integer' },
      },
      'Content-Disposition': {
        description:
          '`attachment`, with `filename` (and `filename*` in UTF-8 for a name that is not ASCII) when the name is known.',
        schema: { type: 'string', example: 'attachment; filename="invoice.pdf"' },
      },
    },
  })
  @ApiProblemResponses(
    {
      code: 'validation_failed',
      detail: 'The media id is not valid.',
    },
    { code: 'not_found', detail: notFoundDetail('WhatsApp channel') },
    {
      code: 'media_not_found',
      detail: `Media ${MEDIA_ID_EXAMPLE} was not found: Meta does not know it, or no longer keeps it.`,
    },
    {
      code: 'media_too_large',
      detail:
        'The media is 157286400 bytes; this service streams at most 104857600 (MEDIA_MAX_BYTES).',
    },
    {
      code: 'channel_not_usable',
      detail:
        'Channel 0196f1c2-7a3b-7c4d-8e5f-6a7b8c9d0e1f is inactive; update its access_token to reactivate it.',
    },
    {
      code: 'bad_gateway',
      detail:
        "Meta's answer cannot be used: Graph API gave a media URL on https://example.com, which is not Meta's media host; not followed.",
    },
    {
      code: 'upstream_unavailable',
      detail:
        'Meta cannot serve the media now: Graph API answered HTTP 503 to the media lookup. Retry later.',
    },
    { code: 'upstream_timeout', detail: 'Graph API did not answer within 10000 ms.' },
  )
  async downloadWhatsappMedia(
    @CurrentPrincipal() principal: Principal,
    @Param('id') id: string,
    @Param('media_id') mediaId: string,
    @Res() response: Response,
  ): Promise<void> {
    // The client going away stops the calls to Meta, and the download once it streams.
    const gone = new AbortController();
    response.once('close', () => gone.abort());
    const media = await this.media.open(principal, id, mediaId, { signal: gone.signal });
    if (!media) return;
    // setHeader, not Express's set: that would add a charset to Meta's text/* types.
    response.status(200);
    for (const [name, value] of Object.entries(media.headers)) response.setHeader(name, value);
    await this.media.stream(media, response);
  }
}
