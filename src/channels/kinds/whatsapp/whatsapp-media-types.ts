/**
 * The media WhatsApp's Cloud API accepts, per kind: its MIME types and its largest file (Meta's
 * "Supported media types" table of the Media reference; its "MB" and "KB" taken as MiB and KiB,
 * the generous reading: Meta, not agentline, has the last word). A sticker is `image/webp`: 100 KB
 * when static, 500 KB when animated.
 */
export type WhatsappMediaKind = 'audio' | 'document' | 'image' | 'sticker' | 'video';

const KiB = 1024;
const MiB = 1024 * KiB;

interface MediaKindRule {
  mimeTypes: readonly string[];
  /** The largest file, in bytes (an animated sticker's, for stickers). */
  maxBytes: number;
}

export const WHATSAPP_MEDIA_KINDS: Record<WhatsappMediaKind, MediaKindRule> = {
  // audio/ogg: OPUS codecs only (Meta's note); the codec is not checked here.
  audio: {
    mimeTypes: ['audio/aac', 'audio/amr', 'audio/mpeg', 'audio/mp4', 'audio/ogg'],
    maxBytes: 16 * MiB,
  },
  document: {
    mimeTypes: [
      'text/plain',
      'application/vnd.ms-excel',
      'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
      'application/msword',
      'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
      'application/vnd.ms-powerpoint',
      'application/vnd.openxmlformats-officedocument.presentationml.presentation',
      'application/pdf',
    ],
    maxBytes: 100 * MiB,
  },
  image: { mimeTypes: ['image/jpeg', 'image/png'], maxBytes: 5 * MiB },
  sticker: { mimeTypes: ['image/webp'], maxBytes: 500 * KiB },
  // H.264 video with AAC audio only (Meta's note); the codecs are not checked here.
  video: { mimeTypes: ['video/3gpp', 'video/mp4'], maxBytes: 16 * MiB },
};

/** A static sticker's largest file. */
export const STATIC_STICKER_MAX_BYTES = 100 * KiB;

/** Every MIME type Meta accepts, for messages naming them. */
export const WHATSAPP_MEDIA_TYPES: readonly string[] = Object.values(WHATSAPP_MEDIA_KINDS).flatMap(
  (rule) => rule.mimeTypes,
);

/** What an upload of this MIME type may be: its kind and largest file; undefined if Meta refuses it. */
export function mediaKindOf(
  mimeType: string,
): { kind: WhatsappMediaKind; maxBytes: number } | undefined {
  const type = baseMimeType(mimeType);
  for (const [kind, rule] of Object.entries(WHATSAPP_MEDIA_KINDS)) {
    if (rule.mimeTypes.includes(type)) {
      return { kind: kind as WhatsappMediaKind, maxBytes: rule.maxBytes };
    }
  }
  return undefined;
}

/** `Audio/OGG; codecs=opus` → `audio/ogg`: what Meta's `type` takes. */
export const baseMimeType = (mimeType: string): string =>
  mimeType.split(';')[0].trim().toLowerCase();

/** Bytes a WebP file's header needs to say whether it is animated. */
export const WEBP_HEADER_BYTES = 21;

/**
 * Whether a WebP file is animated, from its first bytes: a `RIFF….WEBPVP8X` extended header with
 * the animation flag (bit 1 of the flags byte at offset 20), per Google's WebP container spec.
 */
export function isAnimatedWebp(head: Buffer): boolean {
  return (
    head.length >= WEBP_HEADER_BYTES &&
    head.toString('latin1', 0, 4) === 'RIFF' &&
    head.toString('latin1', 8, 16) === 'WEBPVP8X' &&
    (head[20] & 0x02) !== 0
  );
}
