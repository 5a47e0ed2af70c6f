/** The longest filename kept, in characters; the rest is cut (the extension kept). */
const MAX_FILENAME_LENGTH = 200;

/**
 * `Content-Disposition: attachment`, with the filename when one is known (RFC 6266): a quoted
 * ASCII `filename` for old clients and, when the name is not plain ASCII, `filename*` in UTF-8
 * (RFC 8187, formerly 5987). The name comes from a third party: only its last path segment is
 * kept, control characters are dropped, and nothing in it can end the header or the parameter.
 */
export function attachmentDisposition(filename?: string | null): string {
  const name = safeFilename(filename ?? '');
  if (name === '') return 'attachment';
  const fallback = name.replace(/[^\x20-\x7e]|["\\%]/g, '_');
  const quoted = `attachment; filename="${fallback}"`;
  return fallback === name ? quoted : `${quoted}; filename*=UTF-8''${encodeRfc8187(name)}`;
}

function safeFilename(raw: string): string {
  const base = raw
    .normalize('NFC')
    // No path: "../../etc/passwd" is "passwd", "C:\\x\\y.pdf" is "y.pdf".
    .split(/[/\\]/)
    .pop()!
    // C0 and C1 controls, DEL, and the line and paragraph separators.
    // eslint-disable-next-line no-control-regex -- matching them is the point
    .replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g, '')
    .trim();
  if (base === '.' || base === '..') return '';
  const chars = [...base];
  if (chars.length <= MAX_FILENAME_LENGTH) return base;
  const dot = base.lastIndexOf('.');
  const extension = dot > 0 && base.length - dot <= 16 ? [...base.slice(dot)] : [];
  return [...chars.slice(0, MAX_FILENAME_LENGTH - extension.length), ...extension].join('');
}

/** RFC 8187 `value-chars`: attr-char as is, every other UTF-8 byte as %XX. */
function encodeRfc8187(value: string): string {
  return encodeURIComponent(value).replace(
    /['()*]/g,
    (char) => `%${char.charCodeAt(0).toString(16).toUpperCase()}`,
  );
}
