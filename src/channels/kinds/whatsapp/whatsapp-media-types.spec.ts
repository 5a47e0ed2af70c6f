import { baseMimeType, isAnimatedWebp, mediaKindOf } from './whatsapp-media-types';

const webp = (chunk: string, flags: number): Buffer => {
  const head = Buffer.alloc(21);
  head.write('RIFF', 0, 'latin1');
  head.write(`WEBP${chunk}`, 8, 'latin1');
  head[20] = flags;
  return head;
};

describe("WhatsApp's media types", () => {
  it.each([
    ['image/jpeg', 'image', 5 * 1024 * 1024],
    ['IMAGE/PNG', 'image', 5 * 1024 * 1024],
    ['audio/ogg; codecs=opus', 'audio', 16 * 1024 * 1024],
    ['application/pdf', 'document', 100 * 1024 * 1024],
    ['image/webp', 'sticker', 500 * 1024],
    ['video/3gpp', 'video', 16 * 1024 * 1024],
  ])('%s is %s, at most %d bytes', (type, kind, maxBytes) => {
    expect(mediaKindOf(type)).toEqual({ kind, maxBytes });
  });

  it.each(['image/gif', 'video/quicktime', 'application/zip', 'audio/wav', ''])(
    '%s is not taken',
    (type) => expect(mediaKindOf(type)).toBeUndefined(),
  );

  it('drops parameters and case from a type', () => {
    expect(baseMimeType(' Audio/OGG ; codecs=opus')).toBe('audio/ogg');
  });

  it('tells an animated WebP by its VP8X animation flag', () => {
    expect(isAnimatedWebp(webp('VP8X', 0x02))).toBe(true);
    expect(isAnimatedWebp(webp('VP8X', 0x10))).toBe(false);
    expect(isAnimatedWebp(webp('VP8 ', 0x02))).toBe(false);
    expect(isAnimatedWebp(webp('VP8X', 0x02).subarray(0, 20))).toBe(false);
  });
});
