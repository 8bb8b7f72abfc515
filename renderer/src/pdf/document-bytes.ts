/**
 * The bytes of a document for its preview, from main's copy (`documents.content`: the page names
 * the batch and the document, never a path). They cross the bridge as base64 (both hosts carry
 * it alike); the last few are kept by digest, so the viewer opened from a thumbnail does not ask
 * again.
 */
import { BridgeError, desk, unwrap } from '../bridge';

const KEPT = 4;
const kept = new Map<string, Promise<Uint8Array>>();

function decode(base64: string): Uint8Array {
  const binary = atob(base64);
  const bytes = new Uint8Array(binary.length);
  for (let index = 0; index < binary.length; index += 1) bytes[index] = binary.charCodeAt(index);
  return bytes;
}

/** A fresh copy of the document's bytes (pdf.js takes over what it is given). */
export async function documentBytes(
  batchId: string,
  documentId: string,
  sha256: string,
): Promise<Uint8Array> {
  let bytes = kept.get(sha256);
  if (!bytes) {
    bytes = unwrap(desk().documents.content(batchId, documentId)).then((content) => decode(content.base64));
    kept.set(sha256, bytes);
    bytes.catch(() => kept.delete(sha256));
    while (kept.size > KEPT) kept.delete(kept.keys().next().value as string);
  }
  return (await bytes).slice();
}

/**
 * Main's own words when it could not give the bytes (the document is gone, its copy unreadable…);
 * undefined for any other failure, such as pdf.js's reading them.
 */
export function refusalOf(error: unknown): string | undefined {
  return error instanceof BridgeError ? error.message : undefined;
}
