import { createHash } from 'node:crypto';
import { SANDBOX_MEDIA_BYTES, SANDBOX_MEDIA_FILES, SandboxMedia } from './sandbox-media';

const CHANNEL = {
  channelId: '0b6f0d4e-8a1c-4c53-9a55-0d0a3c0e9b11',
  organizationId: '5d0c3e0b-1f7c-4a8e-9b3e-2f1a0c9d8e77',
};

describe('SandboxMedia', () => {
  it('keeps a file with its hash, found by its id', () => {
    const media = new SandboxMedia();
    const stored = media.add(CHANNEL, {
      mimeType: 'image/png',
      bytes: Buffer.from('png'),
    });
    expect(media.find(stored.id)).toMatchObject({
      channelId: CHANNEL.channelId,
      mimeType: 'image/png',
      sha256: createHash('sha256').update('png').digest('hex'),
    });
  });

  it('forgets the oldest files past its count', () => {
    const media = new SandboxMedia();
    const first = media.add(CHANNEL, { mimeType: 'text/plain', bytes: Buffer.from('a') });
    let last = first;
    for (let i = 0; i < SANDBOX_MEDIA_FILES; i++) {
      last = media.add(CHANNEL, { mimeType: 'text/plain', bytes: Buffer.from('b') });
    }
    expect(media.find(first.id)).toBeUndefined();
    expect(media.find(last.id)).toBeDefined();
  });

  it('forgets the oldest files past its bytes, never the one just added', () => {
    const media = new SandboxMedia();
    const half = Buffer.alloc(SANDBOX_MEDIA_BYTES / 2 + 1);
    const first = media.add(CHANNEL, { mimeType: 'application/pdf', bytes: half });
    const second = media.add(CHANNEL, { mimeType: 'application/pdf', bytes: half });
    expect(media.find(first.id)).toBeUndefined();
    expect(media.find(second.id)).toBeDefined();
  });
});
