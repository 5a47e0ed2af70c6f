import { graphRefusal, GraphAnswer } from './graph-errors';

/** Meta's supported media types and their largest files (WhatsApp Cloud API, Media reference). */
export const GRAPH_MEDIA_TYPES: Readonly<Record<string, number>> = {
  'audio/aac': 16 * 1024 * 1024,
  'audio/amr': 16 * 1024 * 1024,
  'audio/mpeg': 16 * 1024 * 1024,
  'audio/mp4': 16 * 1024 * 1024,
  'audio/ogg': 16 * 1024 * 1024,
  'text/plain': 100 * 1024 * 1024,
  'application/vnd.ms-excel': 100 * 1024 * 1024,
  'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet': 100 * 1024 * 1024,
  'application/msword': 100 * 1024 * 1024,
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document': 100 * 1024 * 1024,
  'application/vnd.ms-powerpoint': 100 * 1024 * 1024,
  'application/vnd.openxmlformats-officedocument.presentationml.presentation': 100 * 1024 * 1024,
  'application/pdf': 100 * 1024 * 1024,
  'image/jpeg': 5 * 1024 * 1024,
  'image/png': 5 * 1024 * 1024,
  'image/webp': 500 * 1024,
  'video/3gpp': 16 * 1024 * 1024,
  'video/mp4': 16 * 1024 * 1024,
};

/**
 * Meta's checks of "Upload media" (`POST /{phone_number_id}/media`, multipart `messaging_product`,
 * `type`, `file`) once the form is read: the three parameters, a supported type, its size.
 */
export function checkUpload(
  fields: Record<string, string>,
  files: number,
  bytes: number,
): GraphAnswer | undefined {
  if (fields.messaging_product !== 'whatsapp') {
    return graphRefusal(400, 100, '(#100) The parameter messaging_product is required.');
  }
  const type = fields.type;
  if (type === undefined) return graphRefusal(400, 100, '(#100) The parameter type is required.');
  if (files !== 1) return graphRefusal(400, 100, '(#100) The parameter file is required.');
  const maxBytes = GRAPH_MEDIA_TYPES[type];
  if (maxBytes === undefined) {
    return graphRefusal(
      400,
      100,
      `(#100) Param file must be a file with one of the following types: ${Object.keys(GRAPH_MEDIA_TYPES).join(', ')}. Received file of type '${type}'.`,
    );
  }
  if (bytes > maxBytes) return mediaTooBig(type, maxBytes);
  return undefined;
}

export const mediaTooBig = (type: string, maxBytes: number): GraphAnswer =>
  graphRefusal(400, 131053, 'Media upload error', {
    error_data: { details: `File too big: ${type} files must be at most ${maxBytes} bytes` },
  });
