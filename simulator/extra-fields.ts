/**
 * Unknown fields a service may add to any JSON answer (the `extraFields` variant): a client
 * must ignore what it does not know. Added at the top level (`_links`, `meta`) and inside
 * every nested object, with names a real service might use for the well-known ones.
 */

/** What is added inside a nested object, by the name of the field holding it. */
const NESTED_EXTRAS: Record<string, Record<string, unknown>> = {
  document: { pages: 1, content_type: 'application/pdf' },
  evidence: { items: [], generated_at: null },
  participant: { invited: false, created_at: '2026-01-01T00:00:00.000Z' },
  error: { details: [], trace_id: 'trc_simulator' },
};
const OTHER_NESTED_EXTRAS = { _ext: { simulator: true } };

function decorate(value: unknown, fieldName: string | null): unknown {
  if (Array.isArray(value)) return value.map((item) => decorate(item, fieldName));
  if (typeof value !== 'object' || value === null) return value;
  const decorated: Record<string, unknown> = {};
  for (const [key, inner] of Object.entries(value)) decorated[key] = decorate(inner, key);
  if (fieldName === null) return decorated;
  return { ...(NESTED_EXTRAS[fieldName] ?? OTHER_NESTED_EXTRAS), ...decorated };
}

/**
 * A copy of a JSON answer body with unknown fields added at every level. The fields the
 * answer already has keep their values; a non-object body is returned unchanged.
 */
export function withExtraFields(body: unknown, path: string): unknown {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return body;
  const decorated = decorate(body, null) as Record<string, unknown>;
  return {
    _links: { self: { href: path } },
    meta: { api_version: '1', served_by: 'signing-service-simulator' },
    ...decorated,
  };
}
