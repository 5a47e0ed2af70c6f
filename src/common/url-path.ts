/**
 * Outbound URLs whose path holds caller-supplied values. Each value is one path segment,
 * percent-encoded with encodeURIComponent (so `/`, `?` and `#` stay inside it), and `.`, `..` and
 * the empty string are refused: a URL parser, a proxy or the provider itself reads those as
 * "this directory" or "one level up" (`/repos/../user/pulls` is `/user/pulls`), and encoding
 * does not help, since WHATWG URLs read `%2e%2e` as `..` too.
 */

export class UnsafePathSegmentError extends Error {
  constructor(readonly segment: string) {
    super(
      segment === ''
        ? 'A path segment must not be empty.'
        : `"${segment}" cannot be a path segment: it would move up or stay in the path.`,
    );
    this.name = 'UnsafePathSegmentError';
  }
}

/** `/a/b%2Fc`: the segments, each encoded; throws UnsafePathSegmentError for `''`, `.`, `..`. */
export function encodePath(...segments: readonly (string | number)[]): string {
  return segments.map((segment) => `/${encodeSegment(String(segment))}`).join('');
}

/**
 * `base` (its own path kept, trailing slashes dropped) followed by the encoded segments:
 * `urlWithPath('https://graph.facebook.com/v23.0', id, 'messages')`.
 */
export function urlWithPath(base: string, ...segments: readonly (string | number)[]): URL {
  const url = new URL(base);
  url.pathname = `${url.pathname.replace(/\/+$/, '')}${encodePath(...segments)}`;
  return url;
}

function encodeSegment(segment: string): string {
  if (segment === '' || segment === '.' || segment === '..') {
    throw new UnsafePathSegmentError(segment);
  }
  return encodeURIComponent(segment);
}
