import { createHash } from 'node:crypto';
import { SANDBOX_MEDIA_BYTES, SANDBOX_MEDIA_FILES, SandboxMedia } from './sandbox-media';

describe('SandboxMedia', () => {
  it('keeps a file with its hash, found by its id', () => {
    const media = new SandboxMedia();
    const stored = media.add('106540352242922', {
      mimeType: 'image/png',
      bytes: Buffer.from('png'),
    });
    expect(media.find(stored.id)).toMatchObject({
      numberId: '106540352242922',
      mimeType: 'image/png',
      sha256: createHash('sha256').update('png').digest('hex'),
    });
  });

  it('forgets the oldest files past its count', () => {
    const media = new SandboxMedia();
    const first = media.add('1', { mimeType: 'text/plain', bytes: Buffer.from('a') });
    let last = first;
    for (let i = 0; i < SANDBOX_MEDIA_FILES; i++) {
      last = media.add('1', { mimeType: 'text/plain', bytes: Buffer.from('b') });
    }
    expect(media.find(first.id)).toBeUndefined();
    expect(media.find(last.id)).toBeDefined();
  });

  it('forgets the oldest files past its bytes, never the one just added', () => {
    const media = new SandboxMedia();
    const half = Buffer.alloc(SANDBOX_MEDIA_BYTES / 2 + 1);
    const first = media.add('1', { mimeType: 'application/pdf', bytes: half });
    const second = media.add('1', { mimeType: 'application/pdf', bytes: half });
    expect(media.find(first.id)).toBeUndefined();
    expect(media.find(second.id)).toBeDefined();
  });
});
