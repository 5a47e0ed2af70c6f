import { Injectable } from '@nestjs/common';
import { createHash } from 'node:crypto';
import { newMediaId } from './graph/graph-ids';

/** The most media files the sandbox keeps (oldest forgotten first). */
export const SANDBOX_MEDIA_FILES = 200;
/** The most bytes it keeps across them; a single file may be at most this. */
export const SANDBOX_MEDIA_BYTES = 64 * 1024 * 1024;

export interface SandboxMediaFile {
  id: string;
  /**
   * The channel it was uploaded to (or received on), and its organization: that channel's token
   * reads it, while the channel lives. Not the number id, which a later channel may reuse.
   */
  channelId: string;
  organizationId: string;
  mimeType: string;
  filename?: string;
  bytes: Buffer;
  sha256: string;
  at: number;
}

/**
 * Media uploaded to sandbox numbers (and sent by simulated clients), in memory and bounded in
 * count and bytes: Graph's media ids for the sandbox. A restart forgets them.
 */
@Injectable()
export class SandboxMedia {
  private readonly files = new Map<string, SandboxMediaFile>();
  private totalBytes = 0;

  add(
    channel: { channelId: string; organizationId: string },
    file: { mimeType: string; filename?: string; bytes: Buffer },
    at = Date.now(),
  ): SandboxMediaFile {
    const stored: SandboxMediaFile = {
      id: newMediaId(),
      channelId: channel.channelId,
      organizationId: channel.organizationId,
      mimeType: file.mimeType,
      ...(file.filename !== undefined && { filename: file.filename }),
      bytes: file.bytes,
      sha256: createHash('sha256').update(file.bytes).digest('hex'),
      at,
    };
    this.files.set(stored.id, stored);
    this.totalBytes += stored.bytes.length;
    for (const [id, oldest] of this.files) {
      if (this.files.size <= SANDBOX_MEDIA_FILES && this.totalBytes <= SANDBOX_MEDIA_BYTES) break;
      if (id === stored.id) break;
      this.files.delete(id);
      this.totalBytes -= oldest.bytes.length;
    }
    return stored;
  }

  find(id: string): SandboxMediaFile | undefined {
    return this.files.get(id);
  }
}
