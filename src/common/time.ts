/** Timestamps go over the wire as integer milliseconds since the Unix epoch (CONTRACT.md). */
export const toMillis = (date: Date): number => date.getTime();
export const toMillisOrNull = (date: Date | null): number | null => (date ? date.getTime() : null);
export const toIso = (ms: number): string => new Date(ms).toISOString();
