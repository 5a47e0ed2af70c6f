/**
 * A JSON value written one way only: object keys sorted (by UTF-16 code units), recursively;
 * arrays in their order; numbers and strings as JSON.stringify writes them. That is RFC 8785's
 * JSON Canonicalization Scheme for the values JSON.parse returns: two bodies that parse to the
 * same value, whatever their key order, spacing or number spelling (`1.0`, `1`, `1e0`), give the
 * same text. A number beyond a double's range (Infinity) is written `Infinity`, not as JSON.
 */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    const record = value as Record<string, unknown>;
    const members = Object.keys(record)
      .sort()
      .filter((key) => record[key] !== undefined)
      .map((key) => `${JSON.stringify(key)}:${canonicalJson(record[key])}`);
    return `{${members.join(',')}}`;
  }
  // 1e400 parses to Infinity, which JSON.stringify writes as null: written as no JSON value is
  // (RFC 8785 refuses it), so that {"x":1e400} is not {"x":null}.
  if (typeof value === 'number' && !Number.isFinite(value)) return String(value);
  // undefined (no body) is written as null, as JSON.stringify would write it inside an array.
  return JSON.stringify(value) ?? 'null';
}
