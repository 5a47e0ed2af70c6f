import { createHash } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { ToolCatalog } from './tool-catalog';

/** An answer as the bytes sent, with its strong ETag. */
export interface SerializedPage {
  body: Buffer;
  etag: string;
}

/** Pages kept at most, in bytes: a few hundred default pages, whatever the queries ask for. */
const MAX_BYTES = 16 * 1024 * 1024;

/** A page's JSON, as sent, with its ETag. */
export function serializedPage(body: Buffer): SerializedPage {
  const digest = createHash('sha256').update(body).digest('base64url');
  return { body, etag: `"${digest.slice(0, 27)}"` };
}

/**
 * Catalog pages without an agent, as answered: the same for every organization, and changed only
 * when the catalog is (an MCP server's tool list, for example). Agent runtimes read the catalog
 * on every conversation turn; mapping and serializing the page anew each time was most of the
 * cost of the hottest read. Everything is dropped when the catalog's generation moves on.
 */
@Injectable()
export class CatalogPages {
  private readonly pages = new Map<string, SerializedPage>();
  private generation: number;
  private bytes = 0;

  constructor(private readonly catalog: ToolCatalog) {
    this.generation = catalog.generation;
  }

  async get(key: string, build: () => Promise<SerializedPage>): Promise<SerializedPage> {
    if (this.catalog.generation !== this.generation) {
      this.pages.clear();
      this.bytes = 0;
      this.generation = this.catalog.generation;
    }
    const kept = this.pages.get(key);
    if (kept) return kept;
    const builtFor = this.generation;
    const page = await build();
    // A page built while the catalog changed is answered once, not kept.
    if (builtFor === this.catalog.generation && page.body.length <= MAX_BYTES) {
      for (const [oldest, dropped] of this.pages) {
        if (this.bytes + page.body.length <= MAX_BYTES) break;
        this.pages.delete(oldest);
        this.bytes -= dropped.body.length;
      }
      this.pages.set(key, page);
      this.bytes += page.body.length;
    }
    return page;
  }
}

/**
 * RFC 9110 If-None-Match: `*`, or a list of entity tags compared weakly (W/"x" matches "x").
 */
export function matchesIfNoneMatch(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false;
  if (header.trim() === '*') return true;
  const opaque = (tag: string) => tag.trim().replace(/^W\//, '');
  return header.split(',').some((tag) => opaque(tag) === opaque(etag));
}
