/**
 * GRAPH_API_URL, version path included; or a function that gives it when it is known only once
 * the service listens (the built-in sandbox answers on the service's own port, which may be 0
 * until then: see docs/sandbox.md).
 */
export type GraphApiUrl = string | (() => string);

/** Graph's origin and version path, read on each call and parsed once per value. */
export class GraphApiBase {
  private parsed?: { url: string; origin: string; path: string };

  constructor(private readonly url: GraphApiUrl) {}

  get origin(): string {
    return this.current().origin;
  }

  /** The version path without a trailing slash (`/v23.0`). */
  get path(): string {
    return this.current().path;
  }

  private current(): { url: string; origin: string; path: string } {
    const url = typeof this.url === 'string' ? this.url : this.url();
    if (this.parsed?.url !== url) {
      const base = new URL(url.replace(/\/+$/, ''));
      this.parsed = { url, origin: base.origin, path: base.pathname.replace(/\/+$/, '') };
    }
    return this.parsed;
  }
}
