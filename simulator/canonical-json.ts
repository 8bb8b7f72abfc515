/**
 * JSON with object keys sorted at every level, so two bodies that differ only in key order
 * compare equal. Array order is kept: it is meaningful (recipients).
 */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortKeys(value));
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (typeof value !== 'object' || value === null) return value;
  const record = value as Record<string, unknown>;
  // fromEntries defines own properties, so a "__proto__" key stays data instead of a prototype.
  return Object.fromEntries(
    Object.keys(record)
      .sort()
      .map((key) => [key, sortKeys(record[key])]),
  );
}
